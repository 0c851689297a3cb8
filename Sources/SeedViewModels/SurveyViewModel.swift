import Bindery

/// Seed 002: a survey form with two-way bindings and derived, display-ready strings.
///
/// The seed's `Observable<T>` wrappers were optional to mean "not set yet"; the fields stay optional
/// here (null on the wire) except `isCurrentEmployer`, which the seed starts at false.
@MainActor @Observable
public final class SurveyViewModel {
    public var name: String?
    public var companyName: String?
    public var yearsOfExperience: Double?
    public var isCurrentEmployer = false
    public var approxSalary: Float?
    public var comments: String?

    public init() {}

    /// "3.0 yrs", or "--" when not given.
    public var experienceString: String {
        yearsOfExperience.map { "\($0) yrs" } ?? "--"
    }

    /// 45000 -> "45.0k", or "--" when not given.
    public var salaryString: String {
        approxSalary.map { "\($0 / 1000)k" } ?? "--"
    }

    public var prettyString: String {
        """
        Name: \(name ?? "--")
        Company: \(companyName ?? "--")
        Experience: \(experienceString)
        Current Employer?: \(isCurrentEmployer ? "YES" : "NO")
        approx Salary: \(salaryString)
        Comments: \(comments ?? "--")
        """
    }
}

extension SurveyViewModel: ViewModel {
    public static var exposure: Exposure<SurveyViewModel> {
        Exposure {
            Field("name", \.name)
            Field("companyName", \.companyName, label: "Company")
            Field("yearsOfExperience", \.yearsOfExperience)
            Field("isCurrentEmployer", \.isCurrentEmployer, label: "Current employer?")
            Field("approxSalary", \.approxSalary, label: "Approximate salary")
            Field("comments", \.comments)
            Output("experienceString", \.experienceString, label: "Experience")
            Output("salaryString", \.salaryString, label: "Salary")
            Output("prettyString", \.prettyString, label: "Summary")
        }
    }
}
