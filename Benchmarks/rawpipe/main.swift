// rawpipe: the raw-pipe baseline of `bindery-bench`.
//
// It does what binderyd does for one email `setField`, minus everything that costs: it reads
// Content-Length frames from stdin and, for each frame with an id, writes a canned `didChange`
// notification of the size binderyd writes for an email session, then a canned response. No JSON is
// parsed: the id's bytes are found with a dumb scan for `"id":` and echoed (as the response's id and
// as the notification's `cause`), and a counter stands in for the session's revision, so that the
// client checks the same ordering against rawpipe as against binderyd. The replies to everything
// one `read` returned go out in one `write`, as binderyd batches them. A frame without `"id":` is
// not answered. Exits 0 at end of input. Glibc only, no Foundation, nothing reference-counted on
// the hot path, so that it measures the pipes and the process switches, not itself.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that live as long as the process.
struct Template {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ text: String) {
        count = text.utf8.count
        base = .allocate(capacity: max(count, 1))
        _ = UnsafeMutableBufferPointer(start: base, count: count).initialize(from: text.utf8)
    }
}

/// An output buffer written with memcpy.
struct Output {
    var base: UnsafeMutablePointer<UInt8>
    var count = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    @inline(__always) mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < count + extra { newCapacity *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = newCapacity
    }

    @inline(__always) mutating func append(_ template: Template) {
        memcpy(base + count, template.base, template.count)
        count += template.count
    }

    @inline(__always) mutating func append(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        memcpy(base + count, bytes, length)
        count += length
    }

    @inline(__always) mutating func appendDecimal(_ value: Int, digits: Int) {
        var rest = value
        var index = count + digits - 1
        repeat {
            base[index] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
        count += digits
    }
}

@inline(__always) func decimalCount(_ value: Int) -> Int {
    var count = 1
    var rest = value
    while rest >= 10 { rest /= 10; count += 1 }
    return count
}

struct RawPipe {
    let headerName = Template("Content-Length: ")
    let headerEnd = Template("\r\n\r\n")
    let noticeHead = Template(#"{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":"#)
    let noticeMiddle = Template(#","changes":{"isValid":true,"validationMessage":"Email is valid"},"cause":"#)
    let responseHead = Template(#"{"jsonrpc":"2.0","id":"#)
    let responseMiddle = Template(#","result":{"revision":"#)
    let closing = Template("}}")
    var output = Output(capacity: 1 << 20)
    var revision = 0

    /// Where the id's bytes are in `body`: after the first `"id":` (and spaces), up to the next
    /// `,` or `}` (minus spaces).
    @inline(__always) func idRange(_ body: UnsafePointer<UInt8>, _ count: Int) -> (start: Int, count: Int)? {
        var index = 0
        while index + 5 <= count {
            if body[index] == 0x22, body[index + 1] == 0x69, body[index + 2] == 0x64,
               body[index + 3] == 0x22, body[index + 4] == 0x3A {   // "id":
                var start = index + 5
                while start < count, body[start] == 0x20 { start += 1 }
                var end = start
                while end < count, body[end] != 0x2C, body[end] != 0x7D { end += 1 }   // , }
                while end > start, body[end - 1] == 0x20 { end -= 1 }
                return start < end ? (start, end - start) : nil
            }
            index += 1
        }
        return nil
    }

    /// The canned didChange and response for one request body.
    @inline(__always) mutating func answer(_ body: UnsafePointer<UInt8>, _ count: Int) {
        guard let id = idRange(body, count) else { return }
        let idBytes = body + id.start
        revision += 1
        let revisionDigits = decimalCount(revision)
        let noticeLength = noticeHead.count + revisionDigits + noticeMiddle.count + id.count + closing.count
        let responseLength = responseHead.count + id.count + responseMiddle.count + revisionDigits + closing.count
        output.reserve(2 * (headerName.count + 20 + headerEnd.count) + noticeLength + responseLength)

        output.append(headerName)
        output.appendDecimal(noticeLength, digits: decimalCount(noticeLength))
        output.append(headerEnd)
        output.append(noticeHead)
        output.appendDecimal(revision, digits: revisionDigits)
        output.append(noticeMiddle)
        output.append(idBytes, id.count)
        output.append(closing)

        output.append(headerName)
        output.appendDecimal(responseLength, digits: decimalCount(responseLength))
        output.append(headerEnd)
        output.append(responseHead)
        output.append(idBytes, id.count)
        output.append(responseMiddle)
        output.appendDecimal(revision, digits: revisionDigits)
        output.append(closing)
    }

    func writeOutput() -> Bool {
        var offset = 0
        while offset < output.count {
            let written = write(1, output.base + offset, output.count - offset)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// The header block at `p` (`available` bytes): (the body's offset, its length), nil when the
    /// block is not complete yet, (offset, -1) for a block without a length (skipped). Looks for the
    /// blank line and takes the digits after the first colon: good enough for any client that sends
    /// one Content-Length header, which the bench does.
    @inline(__always) func header(_ p: UnsafePointer<UInt8>, _ available: Int) -> (body: Int, length: Int)? {
        var index = 0
        while index + 4 <= available {
            if p[index] == 0x0D, p[index + 1] == 0x0A, p[index + 2] == 0x0D, p[index + 3] == 0x0A {
                var cursor = 0
                while cursor < index, p[cursor] != 0x3A { cursor += 1 }
                cursor += 1
                while cursor < index, p[cursor] == 0x20 { cursor += 1 }
                var length = 0
                var digits = 0
                while cursor < index, p[cursor] &- 0x30 < 10 {
                    length = length * 10 + Int(p[cursor] &- 0x30)
                    digits += 1
                    cursor += 1
                }
                return (index + 4, digits > 0 ? length : -1)
            }
            index += 1
        }
        return nil
    }

    mutating func run() {
        var capacity = 1 << 20
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        var start = 0
        var end = 0
        while true {
            if capacity - end < 64 * 1024 {
                if start > 0 {
                    memmove(buffer, buffer + start, end - start)
                    end -= start
                    start = 0
                }
                if capacity - end < 64 * 1024 {
                    let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                    larger.update(from: buffer, count: end)
                    buffer.deallocate()
                    buffer = larger
                    capacity *= 2
                }
            }
            let count = read(0, buffer + end, capacity - end)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            end += count

            // Every complete frame in the buffer.
            while let (bodyOffset, length) = header(buffer + start, end - start) {
                if length < 0 {   // no length: skip the header block
                    start += bodyOffset
                    continue
                }
                if end - start - bodyOffset < length { break }
                answer(buffer + start + bodyOffset, length)
                start += bodyOffset + length
            }
            if start == end {
                start = 0
                end = 0
            }
            if output.count > 0 {
                guard writeOutput() else { return }
                output.count = 0
            }
        }
    }
}

signal(SIGPIPE, SIG_IGN)
var rawPipe = RawPipe()
rawPipe.run()
exit(0)
