import Foundation
import Geometry
import Raster
@testable import Typesetting

/// The sample texts the golden images, the documentation pictures and the structural tests share.
struct SampleCase: Sendable, CustomStringConvertible {
    let name: String
    let text: String
    let style: TextStyle
    let box: Size

    var description: String { name }

    static let english = SampleCase(
        name: "english",
        text: "Once upon a time, a little fox lived at the edge of a quiet forest. Every morning she ran down to the river to watch the fish jump.",
        style: TextStyle(language: "en", minimumSize: 10, maximumSize: 48), box: Size(width: 360, height: 200))
    static let arabic = SampleCase(
        name: "arabic",
        text: "كان يا ما كان، في قديم الزمان، ثعلب صغير يعيش على حافة غابة هادئة. وكل صباح كان يركض إلى النهر ليشاهد السمك يقفز.",
        style: TextStyle(language: "ar", minimumSize: 10, maximumSize: 48), box: Size(width: 360, height: 200))
    static let bidi = SampleCase(
        name: "bidi",
        text: "The fox said مرحبا يا صديقي to the owl, and smiled.\nقال الثعلب Good morning للبومة ثم ابتسم.",
        style: TextStyle(language: "en", minimumSize: 10, maximumSize: 40), box: Size(width: 360, height: 200))
    static let mongolian = SampleCase(
        name: "mongolian",
        text: "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ ᠦᠨ ᠦᠰᠦᠭ ᠢ ᠳᠡᠭᠡᠷᠡ ᠡᠴᠡ ᠳᠤᠤᠷ᠎ᠠ ᠪᠢᠴᠢᠳᠡᠭ᠃",
        style: TextStyle(language: "mn", writingMode: .verticalLeftToRight, minimumSize: 10, maximumSize: 48),
        box: Size(width: 200, height: 300))
    static let chineseVertical = SampleCase(
        name: "chinese-vertical",
        text: "从前，有一只小狐狸住在安静的森林边上。每天早上，它都跑到河边看鱼跳。",
        style: TextStyle(language: "zh-Hans", writingMode: .verticalRightToLeft, minimumSize: 10, maximumSize: 48),
        box: Size(width: 240, height: 300))
    static let japaneseVertical = SampleCase(
        name: "japanese-vertical",
        text: "むかしむかし、しずかな森のはずれに、小さなきつねがすんでいました。「おはよう」と言いました。",
        style: TextStyle(language: "ja", writingMode: .verticalRightToLeft, minimumSize: 10, maximumSize: 48),
        box: Size(width: 240, height: 300))
    static let chinese = SampleCase(
        name: "chinese",
        text: "从前，有一只小狐狸住在安静的森林边上。每天早上，它都跑到河边看鱼跳。",
        style: TextStyle(language: "zh-Hans", minimumSize: 10, maximumSize: 48), box: Size(width: 360, height: 160))
    static let hebrew = SampleCase(
        name: "hebrew",
        text: "פעם אחת, בקצה של יער שקט, גר שועל קטן. בכל בוקר הוא רץ אל הנהר לראות את הדגים קופצים.",
        style: TextStyle(language: "he", minimumSize: 10, maximumSize: 48), box: Size(width: 360, height: 200))
    static let devanagari = SampleCase(
        name: "devanagari",
        text: "एक समय की बात है, एक शांत जंगल के किनारे एक छोटी लोमड़ी रहती थी। हर सुबह वह मछलियों को उछलते देखने नदी तक दौड़ती थी।",
        style: TextStyle(language: "hi", minimumSize: 10, maximumSize: 48), box: Size(width: 360, height: 200))

    static let all: [SampleCase] = [english, arabic, bidi, mongolian, chineseVertical, japaneseVertical, chinese, hebrew, devanagari]

    static let paper = RGBA8(r: 250, g: 246, b: 236)
    static let ink = RGBA8(r: 30, g: 30, b: 40)

    /// The case drawn on a light paper colour, dark text, the way the documentation shows it.
    func render() throws -> (TextLayout, Bitmap<RGBA8>) {
        let layout = try Typesetter().fit(text, in: box, style: style)
        let image = layout.render(background: SampleCase.paper, color: SampleCase.ink)
        return (layout, image)
    }
}
