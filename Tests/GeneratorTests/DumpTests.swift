import Foundation
import Testing
import Raster
import Geometry
@testable import Generator

/// Writes sample pages as PPM to $PB_DUMP when set (for eyeballing during development).
@Suite struct DumpTests {
    @Test func dumpPages() throws {
        guard let dir = ProcessInfo.processInfo.environment["PB_DUMP"] else { return }
        let size = ProcessInfo.processInfo.environment["PB_SIZE"].flatMap { try? GeneratorOptions.parseSize($0) } ?? (800, 1000)
        let n = Int(ProcessInfo.processInfo.environment["PB_PAGES"] ?? "6") ?? 6
        let diff = Difficulty(rawValue: ProcessInfo.processInfo.environment["PB_DIFF"] ?? "mixed") ?? .mixed
        let plan: BookPlan
        if let story = ProcessInfo.processInfo.environment["PB_STORY"] {
            plan = try Story.load(story).plan(path: story)
        } else {
            plan = try PageGenerator.plan(GeneratorOptions(seed: UInt64(ProcessInfo.processInfo.environment["PB_SEED"] ?? "7") ?? 7, pageCount: n, width: size.0, height: size.1, difficulty: diff))
        }
        let units = (ProcessInfo.processInfo.environment["PB_UNITS"] ?? "").split(separator: ",").compactMap { Int($0) }
        for u in (units.isEmpty ? Array(0..<plan.unitCount) : units) {
            for p in try PageGenerator.render(plan, unit: u) {
                func ppm(_ b: Bitmap<RGBA8>, _ name: String) throws {
                    var d = Data("P6\n\(b.width) \(b.height)\n255\n".utf8)
                    for px in b.pixels { d.append(contentsOf: [px.r, px.g, px.b]) }
                    try d.write(to: URL(fileURLWithPath: dir + "/" + name))
                }
                try ppm(p.image, "page-\(p.truth.number).ppm")
                try ppm(p.clean, "clean-\(p.truth.number).ppm")
                print(p.truth.number, p.truth.textBoxes.map { "\($0.placement) \($0.language) \($0.rect)" })
            }
        }
    }
}

extension DumpTests {
    /// Sets one block per script into $PB_DUMP/scripts.pgm.
    @Test func dumpScripts() throws {
        guard let dir = ProcessInfo.processInfo.environment["PB_DUMP"] else { return }
        let reqs = [
            TextRequest(text: Phrases.all[6].zh, language: "zh-Hans", fontSize: 40, measure: 300, orientation: .verticalRL, style: .serif),
            TextRequest(text: Phrases.all[6].ja, language: "ja", fontSize: 40, measure: 300, orientation: .verticalRL, style: .sans),
            TextRequest(text: Phrases.mongolian[3].mn + " " + Phrases.mongolian[4].mn, language: "mn-Mong", fontSize: 40, measure: 300, orientation: .verticalLR, style: .sans),
            TextRequest(text: Phrases.all[5].ar, language: "ar", fontSize: 36, measure: 400, orientation: .horizontal, style: .serif),
            TextRequest(text: Phrases.all[5].ja, language: "ja", fontSize: 32, measure: 400, orientation: .horizontal, style: .serif),
        ]
        var canvas = Bitmap<UInt8>(width: 1400, height: 420, fill: 255)
        var x = 10.0
        for r in reqs {
            let set = try TextSetter.set(r)
            let m = set.coverage(at: Point(x: x, y: 10), clip: canvas.bounds)
            for yy in 0..<m.rect.height {
                for xx in 0..<m.rect.width {
                    let i = (m.rect.y + yy) * canvas.width + m.rect.x + xx
                    let v = m.mask[xx, yy]
                    canvas.pixels[i] = min(canvas.pixels[i], 255 - v)
                }
            }
            x += set.size.width + 30
        }
        var d = Data("P5\n\(canvas.width) \(canvas.height)\n255\n".utf8)
        d.append(contentsOf: canvas.pixels)
        try d.write(to: URL(fileURLWithPath: dir + "/scripts.pgm"))
    }
}
