import AppViewModels
import BinderyServer
import Foundation
import Synchronization
import SeedViewModels
import Testing
@testable import BinderyTesting

/// BinderyTesting's replay, as a view model author uses it, on this repository's own transcripts:
/// every one of them (async commands, a debounce, timers, children, list splices, batches, errors)
/// replays in this process against the registry of the daemon it was recorded from.
@MainActor @Suite struct TranscriptReplayTests {
    nonisolated static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Transcripts")

    nonisolated static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    /// The registry of the daemon a transcript names: binderyd's seeds, or appd's app view models.
    static func registry(for transcript: Transcript) -> ViewModelRegistry {
        var registry = ViewModelRegistry()
        if transcript.daemon == "appd" { ExampleViewModels.register(into: &registry) } else { registry.registerSeedViewModels() }
        return registry
    }

    @Test func everyTranscriptIsHere() {
        #expect(Self.names.count >= 30, "\(Self.names)")
        #expect(Self.names.contains("cause-until-answered.jsonl"))
    }

    @Test(arguments: names)
    func replaysInProcess(_ name: String) async throws {
        let transcript = try Transcript("../Transcripts/" + name)
        try await transcript.replay(Self.registry(for: transcript))
    }
}

/// Why a deterministic replay runs the process's global jobs on the main actor (SerialJobs): a
/// view model's own tasks (the search's debounce, the quote stream, a tab's timer) must reach their
/// next sleep on the virtual clock before it moves on. With every thread of the cooperative pool
/// busy — as when other tests block them reading pipes — they would not, and the replay would see
/// their changes late or never.
@MainActor @Suite struct SerialReplayTests {
    @Test func aViewModelsOwnTasksKeepTimeWhileThePoolIsBusy() async throws {
        let transcript = try Transcript("../Transcripts/cause-until-answered.jsonl")
        // In the replays' turn, so that no other replay routes these blockers to the main actor.
        let report = try await ReplayTurns.take {
            let flags = Flags()
            // More blockers than the pool has threads; each holds its thread until told to stop, or for
            // 5 s at most (so that without SerialJobs this fails with a diff rather than hanging).
            let blockers = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount)).map { _ in
                Task.detached {
                    flags.started.add(1, ordering: .sequentiallyConsistent)
                    let end = ContinuousClock.now + .seconds(5)
                    while !flags.stop.load(ordering: .sequentiallyConsistent), ContinuousClock.now < end { usleep(1000) }
                }
            }
            while flags.started.load(ordering: .sequentiallyConsistent) < ProcessInfo.processInfo.activeProcessorCount { usleep(1000) }
            let report = try await transcript.reportInTurn(against: TranscriptReplayTests.registry(for: transcript))
            flags.stop.store(true, ordering: .sequentiallyConsistent)
            for blocker in blockers { await blocker.value }
            return report
        }
        #expect(report.passed, "\(report)")
    }
}

private final class Flags: Sendable {
    let stop = Atomic<Bool>(false)
    let started = Atomic<Int>(0)
}
