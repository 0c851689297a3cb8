import Testing

/// The suites that drive a real `binderyd` over pipes. Their checks block a thread (reading with a
/// deadline, waiting for an exit), and Swift Testing runs them on the cooperative pool, which has one
/// thread per core: so they run one at a time, leaving the rest of the pool to the in-process tests
/// (whose view models' clock sleeps need it).
@Suite(.serialized) enum ProcessTests {}
