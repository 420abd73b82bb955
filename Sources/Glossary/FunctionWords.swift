// Words that carry grammar rather than meaning. A learner's glossary has no use for "the" or
// "في", and in a book of forty sentences they co-occur with everything, so the aligner ignores
// them. The lists are short on purpose: the frequency cut in `AlignmentOptions.maximumShare`
// catches the rest in longer books; these catch them in short ones, where it cannot.

enum FunctionWords {
    static func contains(_ key: String, language: String) -> Bool {
        let base = language.split(separator: "-").first.map(String.init) ?? language
        return lists[base]?.contains(key) ?? false
    }

    static let lists: [String: Set<String>] = [
        "en": words("""
            a an the and or but of to in on at by for from with into onto over under up down out off as is are was were be been
            it its it's he him his she her hers they them their we us our you your i me my this that these those there here
            then so not no do does did has have had will would can could all very too just who what when where which how
            """),
        "fr": words("""
            le la les l' un une des du de d' et ou mais à au aux en dans sur sous par pour avec sans ce cet cette ces il elle
            ils elles on nous vous je tu me te se son sa ses leur leurs est sont était était ne pas plus qui que qu' y très
            """),
        "es": words("""
            el la los las un una unos unas de del al y o pero a en con sin por para sobre se su sus es son era está están
            lo le les que qui muy no sí yo tú él ella ellos ellas nos mi mis tu tus
            """),
        "ar": words("""
            في من إلى على عن مع و ف ثم أو هو هي هم هن أنا نحن أنت هذا هذه ذلك تلك التي الذي الذين كان كانت قد لا لم لن ما
            يا كل بعد قبل عند حتى
            """),
    ]

    static func words(_ s: String) -> Set<String> {
        Set(s.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }
}
