// A IIIF Presentation 3 Collection: the library as one document listing each book's manifest,
// which viewers (Mirador, Universal Viewer) and harvesters open to browse a whole library.
// Entries carry the book's title so a viewer can list them without fetching every manifest.

public import BookModel

extension IIIF {
    public struct CollectionEntry: Sendable {
        /// The manifest's URL (its "id").
        public var manifest: String
        public var title: LocalizedText
        public init(manifest: String, title: LocalizedText) {
            self.manifest = manifest
            self.title = title
        }
    }

    /// The collection `id` named `label`, its items the manifests in the order given.
    public static func collection(id: String, label: String, entries: [CollectionEntry]) -> [UInt8] {
        var c = JSONObject()
        c["@context"] = .string(context)
        c["id"] = .string(id)
        c["type"] = "Collection"
        c["label"] = .object(["none": [.string(label)]])
        c["items"] = .array(entries.map { e in
            .object(["id": .string(e.manifest), "type": "Manifest", "label": languageMap(e.title)])
        })
        return JSONWriter.serialize(.object(c))
    }
}
