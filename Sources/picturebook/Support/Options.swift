import ArgumentParser

/// `--jobs` of the book commands (analyze, clear, popout): pages worked on at once.
func validateJobs(_ jobs: Int) throws {
    guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1...64, got \(jobs)") }
}
