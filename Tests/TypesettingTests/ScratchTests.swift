import Foundation
import Testing
import Raster
@testable import Typesetting

func writePPM(_ b: Bitmap<RGBA8>, _ path: String) {
    var d = Data("P6\n\(b.width) \(b.height)\n255\n".utf8)
    for p in b.pixels { d.append(contentsOf: [p.r, p.g, p.b]) }
    try? d.write(to: URL(fileURLWithPath: path))
}

@Test(arguments: SampleCase.all) func scratchRender(_ c: SampleCase) throws {
    guard ProcessInfo.processInfo.environment["TYPESET_SCRATCH"] != nil else { return }
    let (layout, image) = try c.render()
    print(c.name, layout.fontSize, layout.lines.count, layout.overflows, layout.contentSize)
    writePPM(image, "/tmp/typeset/\(c.name).ppm")
}
