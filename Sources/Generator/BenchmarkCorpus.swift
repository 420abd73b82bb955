// The fixed corpora the quality benchmarks score against. Changing a seed, a size or the
// generator's drawing code changes every benchmark number, so these are pinned here and listed
// in Documentation/Generator.md.

public enum BenchmarkCorpus {
    /// The standard corpus: four 12-page books of mixed difficulty at 1600×2000 (48 pages) —
    /// text detection F1 and in-fill PSNR are reported on this.
    public static func standard() -> [GeneratorOptions] {
        [1_001, 1_002, 1_003, 1_004].map {
            GeneratorOptions(seed: $0, pageCount: 12, width: 1600, height: 2000, difficulty: .mixed)
        }
    }

    /// The hard corpus: text over busy art and light text on dark art, heavier scan wear
    /// (24 pages), reported alongside the standard numbers.
    public static func hard() -> [GeneratorOptions] {
        [2_001, 2_002].map { GeneratorOptions(seed: $0, pageCount: 12, width: 1600, height: 2000, difficulty: .hard) }
    }

    /// A small corpus for smoke tests and CI (8 pages at 400×500).
    public static func quick() -> [GeneratorOptions] {
        [GeneratorOptions(seed: 3_001, pageCount: 8, width: 400, height: 500, difficulty: .mixed)]
    }

    /// Generates `sets` into `directory/seed-<seed>/` and returns each set's truth.
    public static func write(
        _ sets: [GeneratorOptions], to directory: String, encoder: any PageImageEncoder,
        progress: (@Sendable (String) -> Void)? = nil
    ) throws(GeneratorError) -> [CorpusTruth] {
        var out: [CorpusTruth] = []
        for o in sets {
            let plan = try PageGenerator.plan(o)
            out.append(try BookWriter.write(plan, to: directory + "/seed-\(o.seed)", encoder: encoder, progress: progress))
        }
        return out
    }
}
