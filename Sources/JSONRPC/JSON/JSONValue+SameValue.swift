extension JSONValue {
    /// Whether two values mean the same on the wire: like `==`, except that an integer and a
    /// number are the same when they are numerically equal (`3` and `3.0`), at any depth.
    ///
    /// Bindery compares what a client wrote (`3`) with what the model then holds (`3.0` in a
    /// Double field) this way, so that only real differences are sent back.
    public func isSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let left), .double(let right)), (.double(let right), .int(let left)):
            return Double(exactly: left) == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isSameValue(as: $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count && zip(left.members, right.members).allSatisfy {
                $0.key == $1.key && $0.value.isSameValue(as: $1.value)
            }
        default:
            return self == other
        }
    }
}
