// The sentences generated corpus pages print: short picture-book sentences with translations,
// kept simple so every translation is right.

struct Phrase: Sendable {
    var en: String
    var ar: String
    var zh: String
    var ja: String
}

struct MongolianPhrase: Sendable {
    /// Traditional Mongolian script (classical orthography).
    var mn: String
    var en: String
}

enum Phrases {
    static let all: [Phrase] = [
        Phrase(en: "The sun is shining over the hills.", ar: "الشمس مشرقة فوق التلال.", zh: "太阳照在山上。", ja: "お日さまが山の上でかがやいています。"),
        Phrase(en: "A little sheep lives on the farm.", ar: "يعيش خروف صغير في المزرعة.", zh: "农场里住着一只小羊。", ja: "農場に小さなひつじがすんでいます。"),
        Phrase(en: "The children play in the garden.", ar: "يلعب الأطفال في الحديقة.", zh: "孩子们在花园里玩。", ja: "子どもたちは庭であそびます。"),
        Phrase(en: "The cat sleeps under the tree.", ar: "تنام القطة تحت الشجرة.", zh: "猫在树下睡觉。", ja: "ねこは木の下でねむります。"),
        Phrase(en: "Grandmother bakes bread in the morning.", ar: "تخبز الجدة الخبز في الصباح.", zh: "奶奶早上烤面包。", ja: "おばあさんは朝パンをやきます。"),
        Phrase(en: "The wind carries the red kite high into the sky.", ar: "تحمل الريح الطائرة الورقية الحمراء عاليًا في السماء.", zh: "风把红风筝吹得很高。", ja: "風が赤いたこを空高くはこびます。"),
        Phrase(en: "At night the moon watches over the village.", ar: "في الليل يسهر القمر على القرية.", zh: "晚上，月亮照着村子。", ja: "夜、月が村を見まもっています。"),
        Phrase(en: "The dog runs to the river.", ar: "يركض الكلب إلى النهر.", zh: "小狗跑到河边。", ja: "犬は川へ走ります。"),
        Phrase(en: "Birds sing in the green trees.", ar: "تغني الطيور في الأشجار الخضراء.", zh: "鸟儿在绿树上唱歌。", ja: "鳥が緑の木でうたいます。"),
        Phrase(en: "We walk home together.", ar: "نمشي إلى البيت معًا.", zh: "我们一起走回家。", ja: "みんなでいっしょに家へ帰ります。"),
        Phrase(en: "The rain falls softly on the roof.", ar: "يسقط المطر بهدوء على السطح.", zh: "雨轻轻地落在屋顶上。", ja: "雨がやさしく屋根にふります。"),
        Phrase(en: "My friend has a blue boat.", ar: "لصديقي قارب أزرق.", zh: "我的朋友有一条蓝色的小船。", ja: "友だちは青いボートを持っています。"),
        Phrase(en: "The flowers open in the spring.", ar: "تتفتح الأزهار في الربيع.", zh: "春天花开了。", ja: "春になると花がさきます。"),
        Phrase(en: "The horse eats fresh grass.", ar: "يأكل الحصان العشب الطازج.", zh: "马吃新鲜的草。", ja: "馬は新しい草を食べます。"),
        Phrase(en: "Good night, little star.", ar: "طابت ليلتك أيتها النجمة الصغيرة.", zh: "晚安，小星星。", ja: "おやすみ、小さな星。"),
        Phrase(en: "Father opens the big door.", ar: "يفتح أبي الباب الكبير.", zh: "爸爸打开大门。", ja: "お父さんが大きなドアをあけます。"),
    ]

    static let mongolian: [MongolianPhrase] = [
        MongolianPhrase(mn: "ᠨᠠᠷᠠᠨ ᠭᠠᠷᠪᠠ᠃", en: "The sun rose."),
        MongolianPhrase(mn: "ᠲᠩᠷᠢ ᠬᠥᠬᠡ᠃", en: "The sky is blue."),
        MongolianPhrase(mn: "ᠪᠠᠭ᠎ᠠ ᠮᠣᠷᠢ ᠭᠦᠶᠦᠪᠡ᠃", en: "The little horse ran."),
        MongolianPhrase(mn: "ᠮᠣᠷᠢ ᠡᠪᠡᠰᠦ ᠢᠳᠡᠪᠡ᠃", en: "The horse ate grass."),
        MongolianPhrase(mn: "ᠬᠡᠦᠬᠡᠳ ᠲᠣᠭᠯᠠᠪᠠ᠃", en: "The children played."),
        MongolianPhrase(mn: "ᠡᠭᠦᠯᠡ ᠴᠠᠭᠠᠨ᠃", en: "The clouds are white."),
        MongolianPhrase(mn: "ᠣᠳᠤᠨ ᠣᠯᠠᠨ᠃", en: "There are many stars."),
        MongolianPhrase(mn: "ᠴᠡᠴᠡᠭ ᠰᠠᠶᠢᠬᠠᠨ᠃", en: "The flowers are beautiful."),
    ]
}
