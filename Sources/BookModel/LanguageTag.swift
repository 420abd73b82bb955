// BCP 47 language tags as a book manifest uses them: "en", "ar", "mn-Mong", "zh-Hant-TW", "fil".
// Checked against the subtag tables in LanguageTables.swift. Tags are case-insensitive by the
// standard, but Picturebook matches text to languages by exact string, so a tag in unusual case
// ("EN", "zh-hant") is flagged with its conventional spelling.

public enum LanguageTag {
    public enum Verdict: Hashable, Sendable {
        /// Well-formed, known and conventionally spelled.
        case valid
        /// Valid, but conventionally spelled `canonical` (case differs).
        case nonCanonical(canonical: String)
        /// Not a usable tag; `reason` says why and, where it can, what to write instead.
        case invalid(reason: String)
    }

    /// Checks a tag. Accepted shape: language[-Script][-REGION][-variant…][-x-private…], where
    /// language is 2–3 letters from the table, Script is 4 letters, REGION 2 letters or 3 digits.
    public static func check(_ tag: String) -> Verdict {
        guard !tag.isEmpty else { return .invalid(reason: "empty language tag") }
        if tag.contains(where: { $0 == " " || $0 == "\t" }) {
            return .invalid(reason: "\(q(tag)) contains spaces; a language tag looks like \"en\" or \"zh-Hant\"")
        }
        if tag.contains("_") {
            let fixed = tag.replacingUnderscores
            return .invalid(reason: "\(q(tag)) uses '_'; language tags separate parts with '-': \(q(canonicalCase(fixed)))")
        }
        guard tag.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }) else {
            if let code = LanguageTables.codeForName[tag.lowercased()] {
                return .invalid(reason: "\(q(tag)) is not a language tag; did you mean \(q(code))?")
            }
            return .invalid(reason: "\(q(tag)) is not a language tag: use letters, digits and '-', like \"en\" or \"zh-Hant\"")
        }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if parts.contains(where: \.isEmpty) {
            return .invalid(reason: "\(q(tag)) has an empty part between '-'")
        }
        let primary = parts[0].lowercased()
        if primary == "x" || primary == "i" {
            return .invalid(reason: "\(q(tag)) has no language; private-use and grandfathered tags are not supported")
        }
        if LanguageTables.languages[primary] == nil {
            if let replacement = LanguageTables.replacements[primary] {
                return .invalid(reason: "\(q(parts[0])) should be written \(q(replacement)) (the shortest ISO 639 code)")
            }
            if let code = LanguageTables.codeForName[parts[0].lowercased()] {
                return .invalid(reason: "\(q(tag)) is not a language tag; did you mean \(q(code))?")
            }
            if primary.count >= 2, primary.count <= 3, primary.allSatisfy(\.isLetter) {
                if primary.count == 3, primary >= "qaa", primary <= "qtz" {
                    // ISO 639 private-use range: local codes a library may assign.
                } else {
                    return .invalid(reason: "\(q(parts[0])) is not an ISO 639 language code")
                }
            } else {
                return .invalid(reason: "\(q(tag)) does not start with a 2- or 3-letter ISO 639 language code")
            }
        }

        var k = 1
        var seenVariants: Set<String> = []
        if k < parts.count, parts[k].count == 3, parts[k].allSatisfy(\.isLetter) {
            return .invalid(reason: "\(q(tag)): extended language subtags are not supported; use \(q(parts[k].lowercased())) on its own")
        }
        if k < parts.count, parts[k].count == 4, parts[k].allSatisfy(\.isLetter) {
            let script = titlecased(parts[k])
            let isPrivate = script >= "Qaaa" && script <= "Qabx"
            guard LanguageTables.scripts[script] != nil || isPrivate else {
                return .invalid(reason: "\(q(tag)): \(q(parts[k])) is not an ISO 15924 script code (like Latn, Arab, Cyrl, Hans, Mong)")
            }
            k += 1
        }
        if k < parts.count {
            let p = parts[k]
            if p.count == 2, p.allSatisfy(\.isLetter) {
                let region = p.uppercased()
                let isPrivate = region == "AA" || region == "ZZ" || (region >= "QM" && region <= "QZ") || region.hasPrefix("X")
                guard LanguageTables.regions.contains(region) || isPrivate else {
                    let hint = region == "UK" ? "; the United Kingdom is \"GB\"" : ""
                    return .invalid(reason: "\(q(tag)): \(q(p)) is not an ISO 3166 country code\(hint)")
                }
                k += 1
            } else if p.count == 3, p.allSatisfy(\.isNumber) {
                k += 1  // UN M.49 area such as 419 (Latin America)
            }
        }
        while k < parts.count {
            let p = parts[k].lowercased()
            if p.count == 1 {
                // An extension (u-…, t-…) or private use (x-…): everything after is free-form
                // alphanumerics of 1–8 characters.
                let rest = parts[(k + 1)...]
                let minLength = p == "x" ? 1 : 2
                guard !rest.isEmpty, rest.allSatisfy({ $0.count >= minLength && $0.count <= 8 }) else {
                    return .invalid(reason: "\(q(tag)): the -\(p)- extension must be followed by subtags of \(minLength)–8 letters or digits")
                }
                break
            }
            let isVariant = (p.count >= 5 && p.count <= 8) || (p.count == 4 && p.first!.isNumber)
            guard isVariant else {
                return .invalid(reason: "\(q(tag)): unexpected part \(q(parts[k])) (expected a script like Latn, a region like US, or a variant)")
            }
            guard seenVariants.insert(p).inserted else {
                return .invalid(reason: "\(q(tag)): variant \(q(parts[k])) is repeated")
            }
            k += 1
        }
        let canonical = canonicalCase(tag)
        return canonical == tag ? .valid : .nonCanonical(canonical: canonical)
    }

    public static func isValid(_ tag: String) -> Bool {
        if case .invalid = check(tag) { return false }
        return true
    }

    /// The conventional spelling (`zh-hant-tw` → `zh-Hant-TW`), or nil for an invalid tag.
    public static func canonical(_ tag: String) -> String? {
        switch check(tag) {
        case .valid: return tag
        case .nonCanonical(let c): return c
        case .invalid: return nil
        }
    }

    /// A tag written by another tool, in the spelling book.json wants: a three-letter ISO 639-2
    /// code with a two-letter form replaced ("eng" → "en", as Tesseract and many ALTO producers
    /// write), Tesseract's script suffix dropped ("chi_sim" → "zh"), the case made conventional.
    /// Nil when it is not a valid tag even then.
    public static func normalized(_ tag: String) -> String? {
        let base = tag.split(separator: "_", maxSplits: 1).first.map(String.init) ?? tag
        var parts = base.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, !first.isEmpty else { return nil }
        if let r = LanguageTables.replacements[first.lowercased()] { parts[0] = r }
        return canonical(parts.joined(separator: "-"))
    }

    /// The English name of the tag's language ("Mongolian" for "mn-Mong"), when the table has it.
    public static func englishName(_ tag: String) -> String? {
        guard let primary = tag.split(separator: "-").first else { return nil }
        return LanguageTables.languages[primary.lowercased()]
    }

    /// The English name of a script subtag ("Mongolian" for "Mong").
    public static func scriptName(_ script: String) -> String? {
        LanguageTables.scripts[titlecased(script)]
    }

    // Letter case by position (RFC 5646 §2.1.1): language lower, 4-letter script title case,
    // 2-letter region upper, everything after a singleton lower.
    static func canonicalCase(_ tag: String) -> String {
        var out: [String] = []
        var afterSingleton = false
        for (i, part) in tag.split(separator: "-", omittingEmptySubsequences: false).enumerated() {
            let p = String(part)
            if i == 0 || afterSingleton {
                out.append(p.lowercased())
            } else if p.count == 1 {
                afterSingleton = true
                out.append(p.lowercased())
            } else if p.count == 4, p.allSatisfy(\.isLetter) {
                out.append(titlecased(p))
            } else if p.count == 2, p.allSatisfy(\.isLetter) {
                out.append(p.uppercased())
            } else {
                out.append(p.lowercased())
            }
        }
        return out.joined(separator: "-")
    }

    static func titlecased(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst().lowercased() }

    private static func q(_ s: String) -> String { String(decoding: JSONWriter.quoted(s), as: UTF8.self) }
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
