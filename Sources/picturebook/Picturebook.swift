import ArgumentParser

@main
struct Picturebook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picturebook",
        abstract: "Turn scanned picture books into clear, multilingual digital books.",
        subcommands: [
            Info.self, Convert.self, Validate.self, Typeset.self, Generate.self, Analyze.self,
            Clear.self, Popout.self, RenderScreens.self, TransitionFrames.self, Thumbs.self, Serve.self, GlossaryCommand.self,
        ])
}
