// Subtag tables for checking language tags. Deliberately a curated subset of the IANA registry:
// every ISO 639-1 language, the ISO 639-2/3 languages a children's library is likely to hold
// (Filipino, Hawaiian, Cantonese, indigenous languages of the Americas, Africa and Asia, …),
// the ISO 15924 scripts Picturebook can meet on a page, and every ISO 3166-1 country. A tag
// outside these tables is reported as an error; a librarian who meets a real one we lack should
// add it here (one line) rather than work around the check.

enum LanguageTables {
    /// "code Name" per line.
    static let languageLines = """
        aa Afar
        ab Abkhazian
        ae Avestan
        af Afrikaans
        ak Akan
        am Amharic
        an Aragonese
        ar Arabic
        as Assamese
        av Avaric
        ay Aymara
        az Azerbaijani
        ba Bashkir
        be Belarusian
        bg Bulgarian
        bi Bislama
        bm Bambara
        bn Bengali
        bo Tibetan
        br Breton
        bs Bosnian
        ca Catalan
        ce Chechen
        ch Chamorro
        co Corsican
        cr Cree
        cs Czech
        cu Church Slavic
        cv Chuvash
        cy Welsh
        da Danish
        de German
        dv Divehi
        dz Dzongkha
        ee Ewe
        el Greek
        en English
        eo Esperanto
        es Spanish
        et Estonian
        eu Basque
        fa Persian
        ff Fulah
        fi Finnish
        fj Fijian
        fo Faroese
        fr French
        fy Western Frisian
        ga Irish
        gd Scottish Gaelic
        gl Galician
        gn Guarani
        gu Gujarati
        gv Manx
        ha Hausa
        he Hebrew
        hi Hindi
        ho Hiri Motu
        hr Croatian
        ht Haitian Creole
        hu Hungarian
        hy Armenian
        hz Herero
        ia Interlingua
        id Indonesian
        ie Interlingue
        ig Igbo
        ii Sichuan Yi
        ik Inupiaq
        io Ido
        is Icelandic
        it Italian
        iu Inuktitut
        ja Japanese
        jv Javanese
        ka Georgian
        kg Kongo
        ki Kikuyu
        kj Kuanyama
        kk Kazakh
        kl Kalaallisut
        km Khmer
        kn Kannada
        ko Korean
        kr Kanuri
        ks Kashmiri
        ku Kurdish
        kv Komi
        kw Cornish
        ky Kyrgyz
        la Latin
        lb Luxembourgish
        lg Ganda
        li Limburgish
        ln Lingala
        lo Lao
        lt Lithuanian
        lu Luba-Katanga
        lv Latvian
        mg Malagasy
        mh Marshallese
        mi Maori
        mk Macedonian
        ml Malayalam
        mn Mongolian
        mr Marathi
        ms Malay
        mt Maltese
        my Burmese
        na Nauru
        nb Norwegian Bokmål
        nd North Ndebele
        ne Nepali
        ng Ndonga
        nl Dutch
        nn Norwegian Nynorsk
        no Norwegian
        nr South Ndebele
        nv Navajo
        ny Chichewa
        oc Occitan
        oj Ojibwa
        om Oromo
        or Odia
        os Ossetian
        pa Punjabi
        pi Pali
        pl Polish
        ps Pashto
        pt Portuguese
        qu Quechua
        rm Romansh
        rn Kirundi
        ro Romanian
        ru Russian
        rw Kinyarwanda
        sa Sanskrit
        sc Sardinian
        sd Sindhi
        se Northern Sami
        sg Sango
        si Sinhala
        sk Slovak
        sl Slovenian
        sm Samoan
        sn Shona
        so Somali
        sq Albanian
        sr Serbian
        ss Swati
        st Southern Sotho
        su Sundanese
        sv Swedish
        sw Swahili
        ta Tamil
        te Telugu
        tg Tajik
        th Thai
        ti Tigrinya
        tk Turkmen
        tl Tagalog
        tn Tswana
        to Tongan
        tr Turkish
        ts Tsonga
        tt Tatar
        tw Twi
        ty Tahitian
        ug Uyghur
        uk Ukrainian
        ur Urdu
        uz Uzbek
        ve Venda
        vi Vietnamese
        vo Volapük
        wa Walloon
        wo Wolof
        xh Xhosa
        yi Yiddish
        yo Yoruba
        za Zhuang
        zh Chinese
        zu Zulu
        ach Acholi
        ady Adyghe
        ain Ainu
        ale Aleut
        alt Southern Altai
        ami Amis
        ang Old English
        apc Levantine Arabic
        arc Aramaic
        arn Mapudungun
        arp Arapaho
        ary Moroccan Arabic
        arz Egyptian Arabic
        ase American Sign Language
        ast Asturian
        awa Awadhi
        bal Baluchi
        bem Bemba
        bfi British Sign Language
        bho Bhojpuri
        bla Blackfoot
        brx Bodo
        bua Buryat
        byn Blin
        cak Kaqchikel
        ceb Cebuano
        cgg Chiga
        chr Cherokee
        chy Cheyenne
        ckb Central Kurdish
        cmn Mandarin Chinese
        crh Crimean Tatar
        crk Plains Cree
        csb Kashubian
        dak Dakota
        din Dinka
        dje Zarma
        doi Dogri
        dsb Lower Sorbian
        efi Efik
        esu Central Yupik
        evn Evenki
        fil Filipino
        fon Fon
        fur Friulian
        gaa Ga
        gag Gagauz
        gez Geez
        grc Ancient Greek
        gsw Swiss German
        hak Hakka Chinese
        haw Hawaiian
        hif Fiji Hindi
        hil Hiligaynon
        hmn Hmong
        hne Chhattisgarhi
        hop Hopi
        hsb Upper Sorbian
        ibb Ibibio
        ilo Iloko
        jam Jamaican Creole English
        kaa Kara-Kalpak
        kab Kabyle
        kac Kachin
        kam Kamba
        kbd Kabardian
        kek Qʼeqchiʼ
        kha Khasi
        kln Kalenjin
        kmr Northern Kurdish
        kok Konkani
        krc Karachay-Balkar
        ksw Sʼgaw Karen
        lad Ladino
        lah Lahnda
        lij Ligurian
        lkt Lakota
        lis Lisu
        loz Lozi
        lua Luba-Lulua
        luo Luo
        lus Mizo
        mag Magahi
        mai Maithili
        mam Mam
        mas Masai
        mdf Moksha
        mfe Morisyen
        mic Mi'kmaq
        mni Manipuri
        mnw Mon
        moh Mohawk
        mus Muscogee
        mww Hmong Daw
        myv Erzya
        mzn Mazanderani
        nah Nahuatl
        nan Min Nan Chinese
        nap Neapolitan
        nds Low German
        new Newari
        nog Nogai
        non Old Norse
        nso Northern Sotho
        nus Nuer
        nyn Nyankole
        pam Pampanga
        pap Papiamento
        pnb Western Punjabi
        prs Dari
        quc Kʼicheʼ
        quz Cusco Quechua
        rom Romany
        ryu Okinawan
        sah Yakut
        sat Santali
        scn Sicilian
        sco Scots
        shi Tachelhit
        shn Shan
        sid Sidamo
        skr Saraiki
        sma Southern Sami
        smj Lule Sami
        smn Inari Sami
        sms Skolt Sami
        srn Sranan Tongo
        syr Syriac
        szl Silesian
        tay Atayal
        tcy Tulu
        teo Teso
        tet Tetum
        tig Tigre
        tiv Tiv
        tli Tlingit
        tpi Tok Pisin
        tum Tumbuka
        tyv Tuvinian
        tzh Tzeltal
        tzm Central Atlas Tamazight
        tzo Tzotzil
        udm Udmurt
        vec Venetian
        wal Wolaytta
        war Waray
        wuu Wu Chinese
        xal Kalmyk
        xog Soga
        yua Yucatec Maya
        yue Cantonese
        zap Zapotec
        zgh Standard Moroccan Tamazight
        zun Zuni
        zza Zaza
        mis Uncoded languages
        mul Multiple languages
        und Undetermined
        zxx No linguistic content
        """

    /// Codes that are real but should be written differently in a tag: the ISO 639-2 three-letter
    /// forms of languages that have a two-letter code, and withdrawn two-letter codes.
    static let replacements: [String: String] = [
        "eng": "en", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "spa": "es", "ara": "ar",
        "zho": "zh", "chi": "zh", "rus": "ru", "por": "pt", "jpn": "ja", "kor": "ko", "hin": "hi",
        "ita": "it", "nld": "nl", "dut": "nl", "tur": "tr", "heb": "he", "fas": "fa", "per": "fa",
        "mon": "mn", "vie": "vi", "tha": "th", "urd": "ur", "ben": "bn", "swa": "sw", "pol": "pl",
        "ukr": "uk", "ell": "el", "gre": "el", "tgl": "tl", "ind": "id", "msa": "ms", "may": "ms",
        "iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro",
    ]

    static let scriptLines = """
        Adlm Adlam
        Arab Arabic
        Aran Arabic (Nastaliq)
        Armn Armenian
        Bali Balinese
        Bamu Bamum
        Bass Bassa Vah
        Batk Batak
        Beng Bengali
        Bopo Bopomofo
        Brai Braille
        Bugi Buginese
        Cans Canadian Aboriginal Syllabics
        Cham Cham
        Cher Cherokee
        Copt Coptic
        Cyrl Cyrillic
        Cyrs Cyrillic (Old Church Slavonic)
        Deva Devanagari
        Dsrt Deseret
        Egyp Egyptian hieroglyphs
        Ethi Ethiopic
        Geor Georgian
        Goth Gothic
        Grek Greek
        Gujr Gujarati
        Guru Gurmukhi
        Hang Hangul
        Hani Han
        Hans Simplified Han
        Hant Traditional Han
        Hebr Hebrew
        Hira Hiragana
        Hmng Pahawh Hmong
        Hmnp Nyiakeng Puachue Hmong
        Hrkt Japanese syllabaries
        Ital Old Italic
        Java Javanese
        Jpan Japanese
        Kali Kayah Li
        Kana Katakana
        Khmr Khmer
        Knda Kannada
        Kore Korean
        Lana Tai Tham
        Laoo Lao
        Latf Latin (Fraktur)
        Latg Latin (Gaelic)
        Latn Latin
        Lepc Lepcha
        Limb Limbu
        Linb Linear B
        Lisu Lisu
        Mand Mandaic
        Mend Mende Kikakui
        Mlym Malayalam
        Mong Mongolian
        Mtei Meitei Mayek
        Mymr Myanmar
        Nkoo N’Ko
        Nshu Nüshu
        Ogam Ogham
        Olck Ol Chiki
        Orkh Old Turkic
        Orya Odia
        Osge Osage
        Phag Phags-pa
        Phnx Phoenician
        Plrd Miao
        Rohg Hanifi Rohingya
        Runr Runic
        Samr Samaritan
        Saur Saurashtra
        Shaw Shavian
        Sinh Sinhala
        Soyo Soyombo
        Sund Sundanese
        Sylo Syloti Nagri
        Syrc Syriac
        Tale Tai Le
        Talu New Tai Lue
        Taml Tamil
        Tavt Tai Viet
        Telu Telugu
        Tfng Tifinagh
        Tglg Tagalog
        Thaa Thaana
        Thai Thai
        Tibt Tibetan
        Vaii Vai
        Wara Warang Citi
        Xsux Cuneiform
        Yezi Yezidi
        Yiii Yi
        Zanb Zanabazar Square
        Zinh Inherited
        Zmth Mathematical notation
        Zsye Emoji
        Zsym Symbols
        Zxxx Unwritten
        Zyyy Common
        Zzzz Unknown
        """

    /// ISO 3166-1 alpha-2, plus the exceptionally reserved codes BCP 47 accepts (EU, UN, …) and
    /// XK (Kosovo), which is user-assigned but universally used.
    static let regionCodes = """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
        BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
        EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
        HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
        LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
        NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
        SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
        TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
        AC CP DG EA EU EZ IC TA UN XK
        """

    static func table(_ lines: String) -> [String: String] {
        var t: [String: String] = [:]
        for line in lines.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            t[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return t
    }

    static let languages: [String: String] = table(languageLines)
    static let scripts: [String: String] = table(scriptLines)
    static let regions: Set<String> = Set(regionCodes.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    /// Lowercased English name → code, to suggest "en" to someone who wrote "English".
    static let codeForName: [String: String] = {
        var t: [String: String] = [:]
        for (code, name) in languages where code.count == 2 || t[name.lowercased()] == nil {
            t[name.lowercased()] = code
        }
        return t
    }()
}
