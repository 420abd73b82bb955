import ArgumentParser

/// `--jobs` of the book commands (analyze, clear, popout): pages worked on at once.
func validateJobs(_ jobs: Int) throws {
    guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1...64, got \(jobs)") }
}

/// Applies the hidden tuning option `--set NAME=VALUE` (analyze, clear): `apply` sets the named
/// parameter and says whether there is one; `known` names the parameter sets for the error.
func applyOverrides(_ overrides: [String], known: String, _ apply: (String, Double) -> Bool) throws {
    for o in overrides {
        let kv = o.split(separator: "=", maxSplits: 1).map(String.init)
        guard kv.count == 2, let v = Double(kv[1]), apply(kv[0], v) else {
            throw ValidationError("--set expects NAME=NUMBER with a parameter of \(known), got '\(o)'")
        }
    }
}
