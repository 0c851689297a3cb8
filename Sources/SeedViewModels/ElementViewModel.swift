import Bindery

/// Seed 004, @dynamicMemberLookup: a chemical element card.
///
/// The model's own properties pass straight through the dynamic member subscript — and so do the
/// key paths the exposure is declared with (`\.name` is `\.[dynamicMember: \ChemicalElement.name]`);
/// only the two descriptions are written out.
@MainActor @Observable @dynamicMemberLookup
public final class ElementViewModel {
    private let element: ChemicalElement

    public init(element: ChemicalElement) {
        self.element = element
    }

    /// Opens the element named by `symbol`; a missing or unknown symbol is an error that lists the
    /// known ones.
    public convenience init(symbol: String?) throws {
        guard let symbol, let element = ChemicalElement.withSymbol(symbol) else {
            let known = ChemicalElement.periodicTable.map(\.symbol)
            let problem = symbol.map { "unknown element symbol \"\($0)\"" } ?? "args.symbol is missing"
            throw OpenError("\(problem); known: \(known.joined(separator: ", "))",
                            data: UnknownSymbol(symbol: symbol, known: known))
        }
        self.init(element: element)
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<ChemicalElement, T>) -> T {
        element[keyPath: keyPath]
    }

    public var numberDescription: String { "Number: \(element.atomicNumber)" }
    public var weightDescription: String { "Weight: \(element.atomicWeight)" }
}

/// The data of a refused open: the symbol given and the ones known.
struct UnknownSymbol: Encodable {
    let symbol: String?
    let known: [String]
}

extension ElementViewModel: ViewModel {
    public static var exposure: Exposure<ElementViewModel> {
        Exposure {
            Output("name", \.name)
            Output("symbol", \.symbol)
            Output("atomicNumber", \.atomicNumber)
            Output("atomicWeight", \.atomicWeight)
            Output("numberDescription", \.numberDescription, label: "Number")
            Output("weightDescription", \.weightDescription, label: "Weight")
        }
    }
}
