import ArgumentParser
import Codecs
import Layout

/// `--jobs` of the book commands (analyze, clear, popout): pages worked on at once.
func validateJobs(_ jobs: Int) throws {
    guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1...64, got \(jobs)") }
}

/// Applies the hidden tuning option `--set NAME=VALUE` (analyze, clear): `apply` sets the named
/// parameter and says whether there is one; `known` names the parameter sets for the error.
func applyOverrides(_ overrides: [String], known: String, _ apply: (String, Double) -> Bool) throws {
    for o in overrides {
        let kv = o.split(separator: "=", maxSplits: 1).map(String.init)
        // Parameters are counts and levels: a value past a billion or not finite is a typo (and
        // would trap when made an integer).
        guard kv.count == 2, let v = Double(kv[1]), v.isFinite, abs(v) <= 1e9, apply(kv[0], v) else {
            throw ValidationError("--set expects NAME=NUMBER with a parameter of \(known), got '\(o)'")
        }
    }
}

/// Every image size a user chooses (`--device WxH@S`, `convert --fit` and `--scale`) is held to the
/// limits every decoded image is held to (20 000 px a side, 200 megapixels), checked before anything
/// is allocated: a 10000×10000@8 device would need 25 GB and used to abort the process.
func validateOutputSize(width: Double, height: Double, what: String) throws {
    let limits = DecodeLimits.default
    guard width.isFinite, height.isFinite, width <= Double(limits.maxDimension), height <= Double(limits.maxDimension),
          width * height <= Double(limits.maxPixels)
    else {
        throw ValidationError(
            "\(what) would be \(Int(min(width, 1e9)))×\(Int(min(height, 1e9))) pixels, larger than the limit of \(limits.maxDimension) pixels per side and \(limits.maxPixels / 1_000_000) megapixels")
    }
}

/// `--device` of render and transition: a named device or WxH@scale whose pixel size is within
/// the limits.
func validateDevice(_ device: String) throws {
    guard let profile = DeviceProfile.parse(device) else {
        throw ValidationError("--device must be iphone-2008, phone, tablet, desktop or WxH@scale, got '\(device)'")
    }
    try validateOutputSize(width: profile.size.width * profile.scale, height: profile.size.height * profile.scale, what: "--device \(device)")
}
