import Testing
import Bindery
import SeedViewModels

@Suite(.serialized) struct EmailAddressTests {
    /// The hand-written matcher must agree with the seed's regular expression.
    /// A regex literal, checked at compile time: building the Regex from a string at run time, in
    /// many tests at once, crashed the runtime's regex parser (SIGSEGV in `lexQuantifier`).
    static func matchesPattern(_ text: String) -> Bool {
        let pattern = /[A-Z0-9a-z._%+-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,4}/
        return (try? pattern.wholeMatch(in: text)) != nil
    }

    static let samples = [
        "", "a", "a@", "@b.co", "a@b", "a@b.", "a@b.c", "a@b.co", "a@b.com", "a@b.comm", "a@b.commm",
        "ada.lovelace+tag@example.co.uk", "a@b..co", "a@.b.co", "a b@c.de", "a@b_c.de", "a@b-c.de",
        "a@1.de", "a@b.d3", "a@@b.de", "a@b@c.de", "é@b.de", "a@b.DE", "%+-._@x.yz", "a@b.co.", "a@-.co",
    ]

    @Test(arguments: samples)
    func agreesWithTheRegularExpression(_ text: String) {
        #expect(EmailAddress.isValid(text) == Self.matchesPattern(text), "\(text)")
    }

    @MainActor @Test func agreesOnGeneratedAddresses() {
        let generator = RandomSource(seed: 7)
        let alphabet = Array("ab1.-_%+@éZ ")
        for _ in 0..<2000 {
            let length = Int(generator.next() % 12)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            #expect(EmailAddress.isValid(text) == Self.matchesPattern(text), "\(text)")
        }
    }
}

@MainActor
@Suite struct EmailViewModelTests {
    @Test func theMessageFollowsValidity() {
        let model = EmailViewModel()
        #expect(model.validationMessage == "Email is invalid")
        model.email = "ada@example.com"
        #expect(model.isValid)
        #expect(model.validationMessage == "Email is valid")
    }
}

@MainActor
@Suite struct SurveyViewModelTests {
    @Test func unsetValuesReadAsDashes() {
        let model = SurveyViewModel()
        #expect(model.experienceString == "--")
        #expect(model.salaryString == "--")
        #expect(model.prettyString == """
            Name: --
            Company: --
            Experience: --
            Current Employer?: NO
            approx Salary: --
            Comments: --
            """)
    }

    @Test func derivedStringsFollowTheSeed() {
        let model = SurveyViewModel()
        model.name = "Ada"
        model.companyName = "Engines"
        model.yearsOfExperience = 3
        model.isCurrentEmployer = true
        model.approxSalary = 45000
        model.comments = "None"
        #expect(model.experienceString == "3.0 yrs")
        #expect(model.salaryString == "45.0k")
        #expect(model.prettyString.split(separator: "\n") == [
            "Name: Ada", "Company: Engines", "Experience: 3.0 yrs", "Current Employer?: YES",
            "approx Salary: 45.0k", "Comments: None",
        ])
    }
}
