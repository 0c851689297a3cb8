import Testing
@testable import Bindery

/// The virtual clock: a Swift `Clock` whose time moves only on `advance`, in order, within bounds.
@MainActor
@Suite struct VirtualClockTests {
    @Test func instantsSaturateAtBothEndsInsteadOfTrapping() {
        let end = VirtualClock.Instant.end
        #expect(end.milliseconds == Int.max)
        #expect(end.advanced(by: .seconds(1)) == end)
        #expect(end.advanced(by: .seconds(Int64.max)) == end)
        #expect(VirtualClock.Instant(offset: .zero).advanced(by: .seconds(-5)).offset == .zero)
        #expect(VirtualClock.Instant(offset: .milliseconds(10)).advanced(by: .milliseconds(5)).milliseconds == 15)
    }

    @Test func aSleepThatStartsJustBeforeAnAdvanceIsSeenByIt() async {
        let clock = VirtualClock()
        var woke = false
        _ = clock.run {
            try? await clock.sleep(for: .milliseconds(100))
            woke = true
        }
        // No yield: the task has not even started; the advance waits for it to reach its sleep.
        await clock.advance(by: .milliseconds(100))
        #expect(woke)
        #expect(clock.now.milliseconds == 100)
    }

    @Test func sleepersDueTogetherWakeInTheOrderTheirTasksStarted() async {
        let clock = VirtualClock()
        var order: [Int] = []
        for number in 1...5 {
            _ = clock.run {
                try? await clock.sleep(for: .seconds(1))
                order.append(number)
            }
        }
        await clock.advance(by: .seconds(1))
        #expect(order == [1, 2, 3, 4, 5])
    }

    @Test func aHugeAdvanceCoalescesPastTheWakeUpLimit() async {
        let clock = VirtualClock()
        var ticks = 0
        let timer = clock.run {
            while (try? await clock.sleep(for: .seconds(2))) != nil { ticks += 1 }
        }
        await clock.advance(by: .milliseconds(1_000_000_000_000))
        #expect(ticks == VirtualClock.maximumWakeUps + 1)
        #expect(clock.now.milliseconds == 1_000_000_000_000)
        // The timer goes on from the target, two seconds at a time.
        await clock.advance(by: .seconds(2))
        #expect(ticks == VirtualClock.maximumWakeUps + 2)
        timer.cancel()
        await timer.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func aDeadlineBeyondTheEndWaitsForTheEnd() async {
        let clock = VirtualClock()
        var woke = false
        _ = clock.run {
            try? await clock.sleep(for: .seconds(Int64.max))
            woke = true
        }
        await clock.advance(by: .milliseconds(Int.max - 1))
        #expect(!woke)
        await clock.advance(by: .milliseconds(1))
        #expect(woke)
    }
}
