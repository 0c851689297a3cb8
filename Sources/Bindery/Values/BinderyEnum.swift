/// No longer needed: Bindery codes every enum by itself — a string (its `String` raw value, else
/// its case name), its cases in the schema — with or without raw values or `CaseIterable`.
///
/// Kept so that code written for an earlier Bindery (`enum Rating: String, CaseIterable,
/// BinderyEnum`) still compiles, with a warning that says to remove the conformance; it requires
/// nothing, so it can no longer fail to synthesize anything.
@available(*, deprecated, message: "no longer needed: Bindery codes every enum by itself; remove the BinderyEnum conformance")
public protocol BinderyEnum {}
