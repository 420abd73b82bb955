import BookModel
import Testing
import TestSupport

@Suite struct LanguageTagTests {
    @Test(arguments: [
        "en", "ar", "mn", "mn-Mong", "mn-Cyrl", "zh-Hans", "zh-Hant", "zh-Hant-TW", "en-US", "es-419", "fil", "haw", "yue",
        "sr-Latn-RS", "de-CH-1996", "en-x-icdl", "ja-Jpan", "und", "qaa", "pt-BR", "chr", "nv", "fr-CA", "ca-ES-valencia",
    ])
    func validTags(_ tag: String) {
        #expect(LanguageTag.check(tag) == .valid)
    }

    @Test(arguments: [
        ("xx", "not an ISO 639 language code"),
        ("english", "did you mean \"en\""),
        ("English", "did you mean \"en\""),
        ("eng", "should be written \"en\""),
        ("iw", "should be written \"he\""),
        ("en_US", "separate parts with '-': \"en-US\""),
        ("en US", "contains spaces"),
        ("", "empty"),
        ("en-", "empty part"),
        ("zh-Abcd", "not an ISO 15924 script"),
        ("en-UK", "not an ISO 3166 country code; the United Kingdom is \"GB\""),
        ("zh-yue", "extended language subtags"),
        ("en-US-Latn", "unexpected part"),
        ("x-private", "no language"),
        ("français", "not a language tag"),
        ("en-u", "must be followed"),
        ("toolongcode", "2- or 3-letter"),
    ])
    func invalidTags(_ tag: String, _ fragment: String) {
        guard case .invalid(let reason) = LanguageTag.check(tag) else {
            Issue.record("\(tag) accepted")
            return
        }
        #expect(reason.contains(fragment), "\(reason)")
    }

    @Test(arguments: [("EN", "en"), ("zh-hant", "zh-Hant"), ("mn-mong", "mn-Mong"), ("en-us", "en-US"), ("SR-latn-rs", "sr-Latn-RS")])
    func unusualCaseIsFlaggedWithTheConventionalSpelling(_ tag: String, _ canonical: String) {
        #expect(LanguageTag.check(tag) == .nonCanonical(canonical: canonical))
        #expect(LanguageTag.canonical(tag) == canonical)
        #expect(LanguageTag.isValid(tag))
    }

    @Test func namesAreAvailableForDisplay() {
        #expect(LanguageTag.englishName("mn-Mong") == "Mongolian")
        #expect(LanguageTag.englishName("fil") == "Filipino")
        #expect(LanguageTag.scriptName("hant") == "Traditional Han")
        #expect(LanguageTag.englishName("xx") == nil)
    }
}

@Suite struct NaturalOrderTests {
    @Test func scansSortTheWayPeopleNumberThem() {
        let names = ["p10.jpg", "p2.jpg", "P1.jpg", "p1.jpg", "cover.png", "p02.jpg", "p2a.jpg", "p100.jpg", "back.jpg",
                     "page-9.png", "page-10.png", "IMG_0100.JPG", "IMG_0099.JPG", "p99999999999999999999999.jpg"]
        #expect(names.sortedNaturally() == [
            "back.jpg", "cover.png", "IMG_0099.JPG", "IMG_0100.JPG", "P1.jpg", "p1.jpg", "p02.jpg", "p2.jpg", "p2a.jpg",
            "p10.jpg", "p100.jpg", "p99999999999999999999999.jpg", "page-9.png", "page-10.png",
        ])
    }

    @Test(arguments: [("p2", "p10"), ("a", "b"), ("a1b2", "a1b10"), ("x", "x1"), ("é1", "é2"), ("Äb", "äc"), ("01", "1"), ("p1", "p1.jpg")])
    func pairs(_ a: String, _ b: String) {
        #expect(NaturalOrder.compare(a, b) < 0)
        #expect(NaturalOrder.compare(b, a) > 0)
        #expect(NaturalOrder.compare(a, a) == 0)
    }

    @Test func theOrderIsTotalAndConsistent() {
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("ab0123 A.-é9")
        let words = (0..<200).map { _ in String((0..<Int.random(in: 0...6, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        for a in words.prefix(60) {
            for b in words.prefix(60) {
                let ab = NaturalOrder.compare(a, b), ba = NaturalOrder.compare(b, a)
                #expect(ab.signum() == -ba.signum())
                #expect((ab == 0) == (a == b), "\(a) vs \(b)")
            }
        }
        let sorted = words.sortedNaturally()
        for (x, y) in zip(sorted, sorted.dropFirst()) { #expect(NaturalOrder.compare(x, y) <= 0) }
    }
}
