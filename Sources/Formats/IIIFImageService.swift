// The description (info.json) of a level-0 IIIF Image API 3 service: the full image at its full
// size, as JPEG. Level 0 is the level a static file server can meet, and all the reader serves.

import BookModel

public enum IIIFImageService {
    public static let context = "http://iiif.io/api/image/3/context.json"

    public static func info(id: String, width: Int, height: Int) -> [UInt8] {
        let doc: JSONValue = .object([
            "@context": .string(context), "id": .string(id), "type": "ImageService3",
            "protocol": "http://iiif.io/api/image", "profile": "level0",
            "width": .number(JSONNumber(width)), "height": .number(JSONNumber(height)),
            "sizes": [.object(["width": .number(JSONNumber(width)), "height": .number(JSONNumber(height))])],
        ])
        return JSONWriter.serialize(doc)
    }
}
