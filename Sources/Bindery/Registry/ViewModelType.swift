/// A registered view model type with its Swift types erased: its exposure, factory and schema.
///
/// Besides the declared fields and outputs, every command contributes two read-only members to a
/// session's state, `<command>.enabled` and `<command>.running`, so that a client sees from the
/// state alone what it may invoke. A dot never occurs in a Swift property name, so these never clash.
@MainActor
public final class ViewModelType {
    public let name: String
    let properties: [ExposedProperty]
    let commands: [ExposedCommand]
    let make: @MainActor (OpenContext) throws -> AnyObject
    /// Every member of the state, in order: properties, then each command's enabled and running.
    let members: [Member]
    /// The names of every member of a session's state, in order.
    public let memberNames: [String]
    private let memberIndex: [String: Int]
    /// Whether a member may hold a child view model (then reads keep track of children).
    let hasChildren: Bool
    private let commandIndex: [String: Int]

    enum Member {
        case property(Int)
        case enabled(Int)
        case running(Int)
    }

    init<Model: ViewModel>(name: String, exposure: Exposure<Model.ExposedModel>,
                           make: @escaping @MainActor (OpenContext) throws -> Model) {
        precondition(Model.self is Model.ExposedModel.Type,
                     "\(Model.self)'s exposure is declared on \(Model.ExposedModel.self), which is not \(Model.self) nor a superclass of it")
        ExposureProblems.check(exposure, of: Model.self, registeredAs: name)
        self.name = name
        self.properties = exposure.properties
        self.commands = exposure.commands
        self.make = { context in try make(context) }
        var members = properties.indices.map(Member.property)
        var names = properties.map(\.name)
        for (index, command) in commands.enumerated() {
            members += [.enabled(index), .running(index)]
            names += ["\(command.name).enabled", "\(command.name).running"]
        }
        self.members = members
        self.memberNames = names
        self.memberIndex = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.commandIndex = Dictionary(commands.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.hasChildren = properties.contains { $0.valueType.containsViewModel }
    }

    public func memberIndex(named name: String) -> Int? {
        // A form's few names are scanned (lengths first, then String's `==`, a word compare for
        // short names): hashing the name cost more than the whole scan (300 instructions a write).
        guard memberNames.count <= 16 else { return memberIndex[name] }
        let length = name.utf8.count
        for index in memberNames.indices where memberNames[index].utf8.count == length && memberNames[index] == name {
            return index
        }
        return nil
    }
    /// The `<command>.running` member: it follows the properties and the command's `enabled` member.
    func runningMemberIndex(ofCommand command: Int) -> Int { properties.count + 2 * command + 1 }
    func commandIndex(named name: String) -> Int? { commandIndex[name] }

    /// Writes field values (a snapshot's) into a new model, in declaration order; throws for a name
    /// that is not a writable field of this type or a value that does not fit.
    func restore(_ fields: JSONObject, into model: AnyObject) throws(SessionError) {
        for (name, _) in fields.members where memberIndex(named: name) == nil {
            throw .unknownField(name, known: memberNames)
        }
        for property in properties {
            guard let value = fields[property.name] else { continue }
            if property.write == nil, let children = property.children {
                try restoreChildren(value, into: children(model), member: property.name)
                continue
            }
            guard let write = property.write else { throw .readOnlyField(property.name) }
            do throws(ValueError) {
                try matchingValues(of: model) { () throws(ValueError) in try write(model, value) }
            } catch {
                throw .wrongValueType(field: property.name, error)
            }
        }
        for (name, _) in fields.members {
            guard let index = memberIndex(named: name), case .property = members[index] else { throw .readOnlyField(name) }
        }
    }

    /// The values of the writable fields of a model, in declaration order: a snapshot's `fields`.
    /// A member holding child view models holds their fields: an object for one child (null for
    /// none), an array for rows.
    func fieldValues(of model: AnyObject) -> JSONObject {
        var fields = JSONObject()
        for property in properties {
            if property.isWritable {
                fields.append(property.name, property.read(model))
            } else if let children = property.children {
                let nested = children(model).map { JSONValue.object($0.type.fieldValues(of: $0.model)) }
                if case .array = property.valueType.unwrapped {
                    fields.append(property.name, .array(nested))
                } else {
                    fields.append(property.name, nested.first ?? .null)
                }
            }
        }
        return fields
    }

    /// Writes a snapshot's fields of child view models into the children the model holds now: one
    /// into one, rows into rows in order (rows the snapshot has and the model lacks are not made:
    /// only the model makes its children).
    private func restoreChildren(_ value: JSONValue, into children: [(model: AnyObject, type: ViewModelType)],
                                 member: String) throws(SessionError) {
        let snapshots: [JSONValue]
        switch value {
        case .array(let elements): snapshots = elements
        case .null: snapshots = []
        default: snapshots = [value]
        }
        for (child, snapshot) in zip(children, snapshots) {
            guard case .object(let fields) = snapshot else {
                throw .wrongValueType(field: member, ValueError(expected: "the fields of \(child.type.name)", found: snapshot.typeName))
            }
            try child.type.restore(fields, into: child.model)
        }
    }

    /// Every value of `type` the model's members hold: what an argument of a type that cannot be
    /// decoded is matched against.
    func values(ofType valueType: Any.Type, in model: AnyObject) -> [Any] {
        properties.flatMap { $0.values?(model, valueType) ?? [] }
    }

    /// Runs `body` (a write, an invoke) with `model`'s values as what arguments are matched against.
    func matchingValues<T, E: Error>(of model: AnyObject, _ body: () throws(E) -> T) throws(E) -> T {
        // References, not a closure: nothing is allocated on the way of every write and invoke.
        let outer = ValueMatching.source
        ValueMatching.source = (self, model)
        defer { ValueMatching.source = outer }
        return try body()
    }

    /// The command names, for the list an unknown-command error gives.
    public var commandNames: [String] { commands.map(\.name) }

    /// The type as `initialize` and `viewModels/describe` present it.
    public private(set) lazy var schema: JSONValue = {
        var fields: [JSONValue] = []
        for property in properties {
            var field = JSONObject(minimumCapacity: 6)
            field.append("name", .string(property.name))
            field.append("label", .string(property.label))
            for member in property.valueType.schema.members { field.append(member.key, member.value) }
            field.append("writable", .bool(property.isWritable))
            fields.append(.object(field))
        }
        var commandSchemas: [JSONValue] = []
        for command in commands {
            var object = JSONObject(minimumCapacity: 5)
            object.append("name", .string(command.name))
            object.append("label", .string(command.label))
            object.append("async", .bool(command.isAsync))
            object.append("hasEnabledCondition", .bool(command.isEnabled != nil))
            if let arguments = command.argumentsType { object.append("args", .object(arguments.schema)) }
            if let result = command.resultType { object.append("result", .object(result.schema)) }
            commandSchemas.append(.object(object))
        }
        var schema: JSONObject = ["type": .string(name), "fields": .array(fields), "commands": .array(commandSchemas)]
        schema.append("schemaHash", .string(Self.hash(of: .object(schema))))
        return .object(schema)
    }()

    /// The schema's `schemaHash`, for a client generated from it to check it still fits.
    public var schemaHash: String { schema["schemaHash"]?.stringValue ?? "" }

    /// FNV-1a (64 bits) of the schema as written, in hex: the same on every run and machine, and
    /// different as soon as any name, label, type or command changes.
    static func hash(of schema: JSONValue) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in JSONWriter.bytes(schema) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
