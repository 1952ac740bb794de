import Foundation
import Testing

// Keeps documentation and the tests that compile its examples from drifting apart: every
// ```swift block of a markdown file must be found, chunk by chunk, in a Swift test source.

/// Checks that every ```swift block of `markdown` is in the Swift file `source`.
///
/// Each block is split into chunks at blank lines; each chunk's lines, trimmed of surrounding
/// whitespace, must appear as consecutive (trimmed) lines of `source`. So a block may be spread
/// over the test file at its blank lines (declarations at file scope, statements in a test, with
/// assertions between chunks), but a chunk cannot be edited on one side only.
///
/// - Parameters:
///   - markdown: The markdown file's path relative to the package root, like `"README.md"`.
///   - source: The test source's path, normally `#filePath`; the package root is three levels
///     up from it (`Tests/<target>/<file>.swift`).
///
/// Records an issue, at `sourceLocation`, naming the block and showing the chunk, for every
/// chunk not found; and one when the markdown has no swift block or a file cannot be read.
func expectEveryBlock(of markdown: String, isIn source: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let sourceURL = URL(fileURLWithPath: source)
    let root = sourceURL.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let markdownURL = root.appendingPathComponent(markdown)
    guard let markdownText = try? String(contentsOf: markdownURL, encoding: .utf8) else {
        Issue.record("cannot read \(markdown) at \(markdownURL.path)", sourceLocation: sourceLocation)
        return
    }
    guard let sourceText = try? String(contentsOf: sourceURL, encoding: .utf8) else {
        Issue.record("cannot read the Swift source \(source)", sourceLocation: sourceLocation)
        return
    }
    let problems = DocumentationBlocks.problems(
        markdown: markdownText, named: markdown,
        source: sourceText, named: sourceURL.lastPathComponent)
    for problem in problems {
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
}

/// The pieces of ``expectEveryBlock(of:isIn:sourceLocation:)``, on text rather than files.
enum DocumentationBlocks {
    /// A fenced code block: its language and its lines, as written.
    struct Block: Equatable {
        /// The info string's first word, lowercased (`swift` for ```` ```swift ````).
        var language: String
        /// The line of the opening fence, counting from 1.
        var line: Int
        var lines: [String]
    }

    /// A run of non-blank lines of a block, trimmed.
    struct Chunk: Equatable {
        /// The line in the markdown of the chunk's first line, counting from 1.
        var line: Int
        var lines: [String]
    }

    /// The fenced code blocks of `markdown` (```` ``` ```` or `~~~` fences, indented or not)
    /// in `language` (any language when nil), and whether the last block was left unclosed.
    static func blocks(in markdown: String, language: String? = "swift") -> (blocks: [Block], unclosed: Block?) {
        var blocks: [Block] = []
        var open: (fence: String, block: Block)?
        for (index, line) in lines(of: markdown).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let current = open {
                if trimmed.hasPrefix(current.fence),
                    trimmed.drop(while: { $0 == current.fence.first }).allSatisfy(\.isWhitespace)
                {
                    if language == nil || current.block.language == language { blocks.append(current.block) }
                    open = nil
                } else {
                    open?.block.lines.append(line)
                }
            } else if let marker = trimmed.first, marker == "`" || marker == "~" {
                let fence = String(trimmed.prefix { $0 == marker })
                guard fence.count >= 3 else { continue }
                let info = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
                if marker == "`" && info.contains("`") { continue }  // inline code, not a fence
                let word = info.prefix { !$0.isWhitespace && $0 != "," && $0 != "{" }.lowercased()
                open = (fence, Block(language: word, line: index + 1, lines: []))
            }
        }
        let unclosed = open.flatMap { language == nil || $0.block.language == language ? $0.block : nil }
        return (blocks, unclosed)
    }

    /// The block's runs of non-blank lines, each line trimmed of surrounding whitespace.
    static func chunks(of block: Block) -> [Chunk] {
        var chunks: [Chunk] = []
        var current: Chunk?
        for (offset, line) in block.lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if let chunk = current { chunks.append(chunk) }
                current = nil
            } else if current == nil {
                current = Chunk(line: block.line + 1 + offset, lines: [trimmed])
            } else {
                current?.lines.append(trimmed)
            }
        }
        if let chunk = current { chunks.append(chunk) }
        return chunks
    }

    /// Where `chunk` starts in `sourceLines` (trimmed), as an index; nil when it is not there.
    static func index(of chunk: [String], in sourceLines: [String]) -> Int? {
        guard !chunk.isEmpty, chunk.count <= sourceLines.count else { return nil }
        return (0...(sourceLines.count - chunk.count)).first { start in
            sourceLines[start] == chunk[0] && sourceLines[start..<start + chunk.count].elementsEqual(chunk)
        }
    }

    /// What is wrong, one message per problem: no swift block, an unclosed one, a chunk that is
    /// not in the source (with the closest partial match, to show where it drifted).
    static func problems(
        markdown: String, named markdownName: String,
        source: String, named sourceName: String
    ) -> [String] {
        let (blocks, unclosed) = blocks(in: markdown)
        var problems: [String] = []
        if let unclosed {
            problems.append("\(markdownName):\(unclosed.line): the swift block opened here is never closed")
        }
        if blocks.isEmpty && unclosed == nil {
            problems.append("\(markdownName) has no ```swift block: nothing is checked")
        }
        let sourceLines = lines(of: source).map { $0.trimmingCharacters(in: .whitespaces) }
        for (number, block) in blocks.enumerated() {
            for chunk in chunks(of: block) where index(of: chunk.lines, in: sourceLines) == nil {
                var message = """
                    \(markdownName):\(chunk.line): a chunk of swift block \(number + 1) (line \(block.line)) \
                    is not in \(sourceName) as consecutive lines:
                    \(chunk.lines.map { "    " + $0 }.joined(separator: "\n"))
                    """
                if let near = closestMatch(of: chunk.lines, in: sourceLines) {
                    message +=
                        "\nits first \(near.count) line(s) match \(sourceName):\(near.start + 1); "
                        + "the next line there is: \(near.next.map { "\"\($0)\"" } ?? "the end of the file")"
                }
                problems.append(message)
            }
        }
        return problems
    }

    /// The longest prefix of `chunk` found in `sourceLines`, where, and the source line after it.
    private static func closestMatch(of chunk: [String], in sourceLines: [String]) -> (count: Int, start: Int, next: String?)? {
        var best: (count: Int, start: Int, next: String?)?
        for start in sourceLines.indices where sourceLines[start] == chunk[0] {
            var count = 0
            while count < chunk.count, start + count < sourceLines.count, sourceLines[start + count] == chunk[count] {
                count += 1
            }
            if count > (best?.count ?? 0) {
                best = (count, start, start + count < sourceLines.count ? sourceLines[start + count] : nil)
            }
        }
        return best
    }

    private static func lines(of text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
    }
}

@Suite("Documentation blocks: the checker itself")
struct DocumentationBlocksTests {
    static let markdown = """
        # Title

        ```swift
        let a = 1
            let b = a + 1

        print(b)
        ```

        ```sh
        make test
        ```

        ~~~swift
        struct S {}
        ~~~
        """

    @Test func findsSwiftBlocksOnly() {
        let (blocks, unclosed) = DocumentationBlocks.blocks(in: Self.markdown)
        #expect(unclosed == nil)
        #expect(blocks.map(\.line) == [3, 14])
        #expect(blocks.map(\.lines) == [["let a = 1", "    let b = a + 1", "", "print(b)"], ["struct S {}"]])
        #expect(DocumentationBlocks.blocks(in: Self.markdown, language: nil).blocks.count == 3)
    }

    @Test func splitsBlocksIntoTrimmedChunksAtBlankLines() {
        let block = DocumentationBlocks.blocks(in: Self.markdown).blocks[0]
        #expect(
            DocumentationBlocks.chunks(of: block) == [
                .init(line: 4, lines: ["let a = 1", "let b = a + 1"]),
                .init(line: 7, lines: ["print(b)"]),
            ])
    }

    @Test func acceptsChunksSpreadOverTheSourceWithAnyIndentation() {
        let source = """
            struct S {}
            func test() {
                let a = 1
                let b = a + 1
                assert(b == 2)
                print(b)
            }
            """
        #expect(DocumentationBlocks.problems(markdown: Self.markdown, named: "doc.md", source: source, named: "T.swift") == [])
    }

    @Test func namesTheMissingChunkAndWhereItDrifted() {
        let source = """
            struct S {}
            let a = 1
            let b = a + 2
            print(b)
            """
        let problems = DocumentationBlocks.problems(markdown: Self.markdown, named: "doc.md", source: source, named: "T.swift")
        #expect(
            problems == [
                """
                doc.md:4: a chunk of swift block 1 (line 3) is not in T.swift as consecutive lines:
                    let a = 1
                    let b = a + 1
                its first 1 line(s) match T.swift:2; the next line there is: "let b = a + 2"
                """
            ])
    }

    @Test func rejectsConsecutiveLinesThatAreNotConsecutiveInTheSource() {
        let source = "struct S {}\nlet a = 1\n\nlet b = a + 1\nprint(b)"
        #expect(DocumentationBlocks.problems(markdown: Self.markdown, named: "doc.md", source: source, named: "T.swift").count == 1)
    }

    @Test func failsWithoutSwiftBlocksAndOnAnUnclosedBlock() {
        #expect(
            DocumentationBlocks.problems(markdown: "```sh\nls\n```", named: "doc.md", source: "", named: "T.swift")
                == ["doc.md has no ```swift block: nothing is checked"])
        #expect(
            DocumentationBlocks.problems(markdown: "text\n```swift\nlet a = 1\n", named: "doc.md", source: "let a = 1", named: "T.swift")
                == ["doc.md:2: the swift block opened here is never closed"])
    }

    @Test func recordsAnIssueForAMarkdownFileWithoutSwiftBlocks() {
        withKnownIssue {
            expectEveryBlock(of: "Package.swift", isIn: #filePath)
        }
    }
}
