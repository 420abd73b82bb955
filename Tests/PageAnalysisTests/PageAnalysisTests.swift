import Testing
@testable import PageAnalysis
