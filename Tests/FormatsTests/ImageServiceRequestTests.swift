// The IIIF Image API request grammar the reader's level-1 service accepts, resolved against an
// image's size: what each region and size form cuts and sends, and what is refused.
import Formats
import Testing

@Suite struct ImageServiceRequestTests {
    func parse(_ region: String, _ size: String, rotation: String = "0", quality: String = "default.jpg",
               w: Int = 1000, h: Int = 600) throws(IIIFImageRequest.Invalid) -> IIIFImageRequest {
        try IIIFImageRequest.parse(region: region, size: size, rotation: rotation, quality: quality, imageWidth: w, imageHeight: h)
    }

    @Test func regionsResolveToPixels() throws {
        #expect(try parse("full", "max") == IIIFImageRequest(x: 0, y: 0, width: 1000, height: 600, outputWidth: 1000, outputHeight: 600))
        #expect(try parse("full", "max").isFull(imageWidth: 1000, imageHeight: 600))
        // square: the centred square of the shorter side.
        let sq = try parse("square", "max")
        #expect((sq.x, sq.y, sq.width, sq.height) == (200, 0, 600, 600))
        // Past the edge: clipped to the image.
        let edge = try parse("900,500,300,300", "max")
        #expect((edge.x, edge.y, edge.width, edge.height, edge.outputWidth, edge.outputHeight) == (900, 500, 100, 100, 100, 100))
        let pct = try parse("pct:10,50,25.5,50", "max")
        #expect((pct.x, pct.y, pct.width, pct.height) == (100, 300, 255, 300))
    }

    @Test func sizesKeepTheRegionsShapeUnlessBothSidesAreGiven() throws {
        let r = "0,0,400,300"
        #expect(try parse(r, "200,").outputHeight == 150)
        #expect(try parse(r, ",150").outputWidth == 200)
        let both = try parse(r, "100,100")
        #expect((both.outputWidth, both.outputHeight) == (100, 100))
        let fit = try parse(r, "!200,200")
        #expect((fit.outputWidth, fit.outputHeight) == (200, 150))
        let half = try parse(r, "pct:50")
        #expect((half.outputWidth, half.outputHeight) == (200, 150))
        // A tiny size of a long region never rounds to nothing.
        #expect(try parse("0,0,1000,1", "10,").outputHeight == 1)
    }

    @Test(arguments: [
        ("full", "1001,", "0", "default.jpg"), ("full", ",601", "0", "default.jpg"), ("full", "^max", "0", "default.jpg"),
        ("full", "pct:101", "0", "default.jpg"), ("full", "!2000,3000", "0", "default.jpg"), ("full", "full", "0", "default.jpg"),
        ("full", "0,", "0", "default.jpg"), ("full", "max", "90", "default.jpg"), ("full", "max", "!0", "default.jpg"),
        ("full", "max", "0", "gray.jpg"), ("full", "max", "0", "default.png"), ("full", "max", "0", "default"),
        ("1000,0,10,10", "max", "0", "default.jpg"), ("0,0,0,10", "max", "0", "default.jpg"), ("0,0,10", "max", "0", "default.jpg"),
        ("-1,0,10,10", "max", "0", "default.jpg"), ("pct:nan,0,1,1", "max", "0", "default.jpg"), ("0,0,10,10", "99999999999999999999,", "0", "default.jpg"),
        ("pct:1e308,0,1,1", "max", "0", "default.jpg"), ("[frob]", "max", "0", "default.jpg"),
    ])
    func unofferedOrMalformedRequestsAreRefused(_ c: (String, String, String, String)) {
        #expect(throws: IIIFImageRequest.Invalid.self) { try parse(c.0, c.1, rotation: c.2, quality: c.3) }
    }
}
