@_exported import JSONRPC
@_exported import Observation

/// A class a Bindery client can drive: an `@Observable` view model plus what it exposes.
///
/// The view model itself stays plain Swift — stored properties, computed properties, methods.
/// ``exposure`` names, by key path, the fields a client may write, the outputs it may read (computed
/// ones included: they are re-read whenever their inputs change) and the commands it may invoke:
///
/// ```swift
/// @MainActor @Observable final class EmailViewModel {
///     var email = ""
///     var isValid: Bool { EmailAddress.isValid(email) }
/// }
///
/// extension EmailViewModel: ViewModel {
///     static var exposure: Exposure<EmailViewModel> {
///         Exposure {
///             Field("email", \.email)
///             Output("isValid", \.isValid)
///         }
///     }
/// }
/// ```
///
/// Any class can be one: final or not (a subclass is served by its superclass's exposure, or by
/// one of its own), `@Observable` or not, isolated to the main actor or not, in a Swift 5 or
/// Swift 6 module. Bindery reads and writes it on the main thread — every request, timer and async
/// command step runs there — so a main-actor view model never needs a lock. One that is written
/// from other threads (a `nonisolated` fetch, a `Task.detached`, a callback) is tolerated: each
/// such change reaches the client (see protocol.md, "Changes made off the main actor"), but its
/// properties must then be safe to read while another thread writes them, as in any app.
public protocol ViewModel: AnyObject {
    /// The class the exposure is declared on: `Self`, inferred from ``exposure``'s type. A subclass
    /// inherits its superclass's.
    associatedtype ExposedModel: AnyObject = Self

    /// What a client may see and do; read once, when the type is registered.
    @MainActor static var exposure: Exposure<ExposedModel> { get }
}
