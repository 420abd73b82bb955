import BookModel
import Codecs
import Foundation
import OCR
import Raster

/// Which boxes `picturebook ocr` reads, and the reading of one page.
enum OCRPlan {
    struct BoxWork: Sendable {
        var id: String
        var region: OCRRegion
    }

    struct PageWork: Sendable {
        var index: Int
        var image: String
        var boxes: [BoxWork]
    }

    struct Unsupported: Encodable, Sendable {
        var language: String
        var boxes: Int
    }

    struct MissingModel: Sendable {
        var language: String
        var model: String
        var boxes: Int
        var error: OCRError
    }

    struct BoxResult: Sendable, Encodable {
        var pageIndex: Int
        var image: String
        var box: String
        var language: String
        var text: String
        var confidence: Double
        var model: String
        var segmentation: String
        var lowConfidenceWords: [String]

        private enum CodingKeys: String, CodingKey {
            case image, box, language, text, confidence, model, segmentation, lowConfidenceWords
        }
    }

    struct PageOutcome: Sendable {
        var image: String
        var results: [BoxResult] = []
        var failure: String?
        var milliseconds: Double = 0
    }

    struct Plan {
        var pages: [PageWork] = []
        var unsupported: [Unsupported] = []
        var missingModels: [MissingModel] = []
        /// Boxes skipped because they already have text (resuming), or a person's text (--force).
        var alreadyDone = 0
    }

    /// The boxes to read: those in a language with an installed model (restricted to `only`),
    /// with no text yet — or, with `force`, text that OCR wrote. Pages with nothing to read are
    /// left out, which is what makes a second run resume.
    static func make(book: Book, only: [String]?, force: Bool, tessdata: String?) -> Plan {
        var plan = Plan()
        let probe = OCREngine(dataPath: tessdata)
        var unsupported: [String: Int] = [:], missing: [String: MissingModel] = [:]
        var verdicts: [String: Result<OCRModel, OCRError>] = [:]
        for (i, page) in book.pages.enumerated() {
            var work: [BoxWork] = []
            for box in page.textBoxes {
                guard let language = box.language ?? book.languages.first else { continue }
                if let only, !only.contains(language) { continue }
                let existing = box.text[language].map { !$0.isEmpty } ?? false
                if existing && (!force || !box.textIsReplaceableByOCR(language)) {
                    plan.alreadyDone += 1
                    continue
                }
                let vertical = box.orientation == .vertical
                let key = language + (vertical ? "|v" : "")
                let verdict: Result<OCRModel, OCRError>
                if let known = verdicts[key] {
                    verdict = known
                } else {
                    do { verdict = .success(try probe.check(language: language, vertical: vertical)) } catch { verdict = .failure(error) }
                    verdicts[key] = verdict
                }
                switch verdict {
                case .success:
                    let polarity = box.polarity.map { $0 == .lightOnDark ? OCRPolarity.lightOnDark : .darkOnLight }
                    let rgba = { (c: RGBColor?) in c.map { RGBA8(r: $0.red, g: $0.green, b: $0.blue) } }
                    let region = OCRRegion(
                        rect: box.rect, language: language, vertical: vertical, polarity: polarity, inkColor: rgba(box.inkColor),
                        backgroundColor: rgba(box.backgroundColor), isPageNumber: box.role == .pageNumber)
                    work.append(BoxWork(id: box.id, region: region))
                case .failure(.modelNotInstalled(_, let model, let package, let searched)):
                    let error = OCRError.modelNotInstalled(language: language, model: model, package: package, searched: searched)
                    missing[key, default: MissingModel(language: language, model: model, boxes: 0, error: error)].boxes += 1
                case .failure:
                    unsupported[language, default: 0] += 1
                }
            }
            if !work.isEmpty { plan.pages.append(PageWork(index: i, image: page.image, boxes: work)) }
        }
        plan.unsupported = unsupported.sorted { $0.key < $1.key }.map { Unsupported(language: $0.key, boxes: $0.value) }
        plan.missingModels = missing.values.sorted { $0.language < $1.language }
        return plan
    }

    /// Decodes the page's scan once and reads each of its boxes. A scan that cannot be decoded,
    /// or a model Tesseract cannot load, fails the page (named), never the run.
    static func read(_ work: PageWork, in directory: String, engine: OCREngine, debugCrops: String? = nil) -> PageOutcome {
        let start = DispatchTime.now()
        var outcome = readUntimed(work, in: directory, engine: engine, debugCrops: debugCrops)
        outcome.milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
        return outcome
    }

    private static func readUntimed(_ work: PageWork, in directory: String, engine: OCREngine, debugCrops: String?) -> PageOutcome {
        var outcome = PageOutcome(image: work.image)
        let path = directory + "/" + work.image
        let image: Bitmap<RGBA8>
        do { image = try ImageDecoder.decode(file: path) } catch {
            outcome.failure = "\(path): \(error)"
            return outcome
        }
        for box in work.boxes {
            if let debugCrops, let model = try? OCRLanguages.model(for: box.region.language, vertical: box.region.vertical),
               let seen = try? RegionNormalizer.normalize(
                page: image, rect: box.region.rect, model: model, vertical: box.region.vertical, polarity: box.region.polarity,
                ink: box.region.inkColor, ground: box.region.backgroundColor) {
                try? PNGEncoder.write(seen.image, to: debugCrops + "/" + BookDirectory.stem(of: work.image) + "-" + box.id + ".png", options: .fast)
            }
            do {
                let r = try engine.recognize(image, region: box.region)
                outcome.results.append(BoxResult(
                    pageIndex: work.index, image: work.image, box: box.id, language: box.region.language, text: r.text,
                    confidence: r.confidence, model: r.model, segmentation: r.segmentation.rawValue,
                    lowConfidenceWords: r.words.filter { $0.confidence < 0.6 }.map(\.text)))
            } catch {
                // One unreadable box (outside the page, say) does not cost the others on the page.
                outcome.failure = (outcome.failure.map { $0 + "; " } ?? "") + "\(path) box \(box.id): \(error)"
            }
        }
        return outcome
    }
}
