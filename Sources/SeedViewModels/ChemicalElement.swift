/// Seed 004's model for the @dynamicMemberLookup post: a chemical element.
public struct ChemicalElement: Equatable, Sendable {
    public let name: String
    public let symbol: String
    public let atomicNumber: Int
    /// Standard atomic weight (IUPAC, abridged to five significant figures where it is an interval).
    public let atomicWeight: Double

    /// The first 20 elements.
    public static let periodicTable: [ChemicalElement] = [
        ("Hydrogen", "H", 1.008), ("Helium", "He", 4.0026), ("Lithium", "Li", 6.94),
        ("Beryllium", "Be", 9.0122), ("Boron", "B", 10.81), ("Carbon", "C", 12.011),
        ("Nitrogen", "N", 14.007), ("Oxygen", "O", 15.999), ("Fluorine", "F", 18.998),
        ("Neon", "Ne", 20.180), ("Sodium", "Na", 22.990), ("Magnesium", "Mg", 24.305),
        ("Aluminium", "Al", 26.982), ("Silicon", "Si", 28.085), ("Phosphorus", "P", 30.974),
        ("Sulfur", "S", 32.06), ("Chlorine", "Cl", 35.45), ("Argon", "Ar", 39.95),
        ("Potassium", "K", 39.098), ("Calcium", "Ca", 40.078),
    ].enumerated().map { index, element in
        ChemicalElement(name: element.0, symbol: element.1, atomicNumber: index + 1, atomicWeight: element.2)
    }

    /// The element with this symbol, ignoring case ("he" finds helium).
    public static func withSymbol(_ symbol: String) -> ChemicalElement? {
        periodicTable.first { $0.symbol.lowercased() == symbol.lowercased() }
    }
}
