// A test that imports BinderyTesting reads and replays transcripts with no other import.
@_exported import BinderyTranscript
