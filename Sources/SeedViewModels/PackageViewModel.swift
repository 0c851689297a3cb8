import Bindery

/// Seed 004, first post: a form editing a package's recipient, with a summary and "Add item".
///
/// The seed bridged KVO to Combine in both directions; here the fields are plain computed
/// properties that read and write through to the nested model, and `summary` is re-sent whenever
/// anything it reads changes — the recipient's names, the street deep in the postal address, the
/// contents.
@MainActor @Observable
public final class PackageViewModel {
    private let package: Package
    private let random: RandomSource

    public init(package: Package, random: RandomSource) {
        self.package = package
        self.random = random
    }

    public var recipientFirstName: String {
        get { package.recipient.firstName }
        set { package.recipient.firstName = newValue }
    }

    public var recipientLastName: String {
        get { package.recipient.lastName }
        set { package.recipient.lastName = newValue }
    }

    /// The recipient's street, reached through the nested postal address.
    public var street: String {
        get { package.recipient.postalAddress.street }
        set { package.recipient.postalAddress.street = newValue }
    }

    public var contents: [PackageContent] { package.contents }

    public var summary: String {
        let contents = package.contents.map { "\($0.title) \($0.weight)" }.joined(separator: ", ")
        return """
            Recipient: \(package.recipient.firstName) \(package.recipient.lastName)
            Postal address: \(package.recipient.postalAddress.formatted)
            Contents: \(contents)
            """
    }

    public func addRandomItem() {
        package.contents.append(PackageContent(title: "Light bulb", weight: random.int(in: 200...300)))
    }
}

extension PackageViewModel: ViewModel {
    public static var exposure: Exposure<PackageViewModel> {
        Exposure {
            Field("recipientFirstName", \.recipientFirstName, label: "First name")
            Field("recipientLastName", \.recipientLastName, label: "Last name")
            Field("street", \.street)
            Output("summary", \.summary)
            Output("contents", \.contents)
            Command("addRandomItem", label: "Add item") { $0.addRandomItem() }
        }
    }
}
