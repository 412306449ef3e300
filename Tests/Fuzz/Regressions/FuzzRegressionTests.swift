import Foundation
import Testing
import TestScheduling

/// The fuzz targets' checks (`make fuzz`), replayed in the normal suite over every seed input and
/// every input a fuzzing run once failed on, so what was found stays fixed.
@Suite("Fuzz inputs replayed", .sharing)
struct FuzzRegressionTests {
    @Test("Every seed and every saved failing input of a fuzz target passes its check",
          arguments: FuzzTargets.all.map(\.name))
    func replay(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let inputs = FuzzInputs.files(for: name)
        #expect(!inputs.isEmpty, "no seed inputs in \(FuzzInputs.corpus.path)/\(name)")
        for file in inputs {
            let data = try Data(contentsOf: file)
            #expect(throws: Never.self, "\(file.path)") { try target.check(data) }
        }
    }
}
