/// Why a session operation was refused; the server turns each case into a documented error code.
public enum SessionError: Error, Sendable, Equatable {
    case unknownField(String, known: [String])
    case readOnlyField(String)
    case wrongValueType(field: String, ValueError)
    case unknownCommand(String, known: [String])
    case commandDisabled(String)
    case invalidArguments(command: String, ValueError)
}
