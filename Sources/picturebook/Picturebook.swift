import ArgumentParser

@main
struct Picturebook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picturebook",
        abstract: "Turn scanned picture books into clear, multilingual digital books.",
        subcommands: [
            Info.self, Convert.self, Validate.self, Typeset.self, Generate.self, Analyze.self,
            Clear.self, OCRCommand.self, Popout.self, RenderScreens.self, TransitionFrames.self, Thumbs.self, Prepare.self,
            Serve.self, Export.self, Import.self, GlossaryCommand.self, Users.self, History.self,
        ])
}
