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
/// View models live on the main actor: every request, timer and async command step runs there, so
/// a view model never needs a lock.
@MainActor
public protocol ViewModel: AnyObject, Observable {
    /// What a client may see and do; read once, when the type is registered.
    static var exposure: Exposure<Self> { get }
}
