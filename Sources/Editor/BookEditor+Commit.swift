// How a change becomes durable: group commit, and book.json written behind the answer.
//
// Saves that arrive while a batch is being made durable wait and go together in the next one.
// A batch runs each change in memory, checks the result, appends all the batch's journal lines
// with one write and one fsync, and answers every change right then: the journal is the durable
// record. book.json is replaced (atomically) with the batch's final state after the answers, on
// the writer thread, which keeps holding the book's lock file until it is done; the next batch
// starts only then. So book.json is never more than one batch behind the journal, and a kill at
// any moment loses no answered change: the next open replays what book.json lacks. Reads in
// this process answer from memory meanwhile (read-your-writes); a write that fails after the
// answer (a full disk) leaves the change in the journal and is tried again first by the next
// batch (which is refused with the error while it still fails), by a timer, and on shutdown.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A batch's book.json write, handed to the writer thread with the lock file still held.
struct HeldWrite {
    let fd: Int32
    let bytes: [UInt8]
    /// The seq of the batch's last journal entry: book.json holds it once this is written.
    let seq: Int
}

extension BookEditor {
    /// Runs a change as part of a group commit; answers once its batch's journal lines are
    /// fsynced. One change that fails alone (a conflict, an invalid page) does not affect the
    /// others; a failed journal append refuses the whole batch.
    func batched<T>(_ work: @escaping () throws(EditError) -> T) throws(EditError) -> T {
        var result: Result<T, EditError>?
        let job = Job()
        job.run = { () -> Bool in
            do throws(EditError) {
                result = .success(try work())
                return true
            } catch {
                result = .failure(error)
                return false
            }
        }
        job.fail = { result = .failure($0) }
        queue.lock()
        waiting.append(job)
        while !job.done {
            if leading {
                queue.wait()
                continue
            }
            leading = true
            let batch = waiting
            waiting = []
            queue.unlock()
            let held = runBatch(batch)
            queue.lock()
            for j in batch { j.done = true }
            if let held {
                // `leading` stays set until book.json is written: the next batch waits for it.
                // This thread answers its own change now, not after the write.
                writer.async { self.writeBehind(held) }
            } else {
                leading = false
            }
            queue.broadcast()
        }
        queue.unlock()
        guard let result else { throw .storage("internal error: a change was not run") }
        return try result.get()
    }

    /// Runs a batch up to its journal fsync. Returns the book.json write to do behind the answers
    /// (holding the lock file), or nil when nothing was journaled (the lock file is then released).
    func runBatch(_ batch: [Job]) -> HeldWrite? {
        timing.start(jobs: batch.count)
        lock.lock()
        defer { lock.unlock() }
        let fd: Int32
        do { fd = try lockFile() } catch {
            for job in batch { job.fail(error) }
            timing.report()
            return nil
        }
        var held: HeldWrite?
        defer {
            if held == nil {
                close(fd)
                timing.report()
            }
        }
        do throws(EditError) {
            var t = SaveTiming.now()
            try refreshIfChanged()
            // book.json must not fall more than one batch behind the journal: a write that failed
            // after its batch was answered is done first, and while it fails nothing new is taken.
            try writeUnsaved()
            timing.add(.refresh, since: &t)
            var applied: [Job] = []
            for job in batch where job.run() { applied.append(job) }
            // The safety net under the per-page checks: the batch's final book, checked whole
            // once. Should a page check ever have let through what the whole-book check
            // refuses, the batch is run again with every change checked whole.
            if !applied.isEmpty, let bytes = unwrittenBook, (try? validate(bytes)) == nil {
                unwritten = []
                unwrittenBook = nil
                diskKey = ""
                try reload()
                strict = true
                defer { strict = false }
                applied = []
                for job in batch where job.run() { applied.append(job) }
            }
            timing.add(.batchCheck, since: &t)
            do throws(EditError) {
                if let seq = try appendBatch(), let bytes = unsavedBook {
                    writing = true
                    held = HeldWrite(fd: fd, bytes: bytes, seq: seq)
                    timing.answered()
                }
            } catch {
                for job in applied { job.fail(error) }
            }
        } catch {
            // The lock, the re-read or the overdue book.json write failed: nothing ran.
            for job in batch { job.fail(error) }
        }
        return held
    }

    /// Appends the batch's entries to the journal with one write and one fsync; returns the seq of
    /// the last, or nil when the batch changed nothing. A failed append leaves the journal as it
    /// was and the memory re-read from the files.
    func appendBatch() throws(EditError) -> Int? {
        guard !unwritten.isEmpty, let bytes = unwrittenBook else { return nil }
        let batch = unwritten
        unwritten = []
        unwrittenBook = nil
        do throws(EditError) {
            try fault?("journal")
            var t = SaveTiming.now()
            _ = try journal.append(batch)
            timing.add(.journal, since: &t)
        } catch {
            // The journal is as before the batch: forget what was applied in memory.
            diskKey = ""
            try? reload()
            throw error
        }
        unsavedBook = bytes
        diskKey = currentDiskKey()
        publish()
        return batch.last?.seq
    }

    /// On the writer thread, after the batch was answered: replaces book.json, then releases the
    /// lock file and lets the next batch start.
    func writeBehind(_ held: HeldWrite) {
        var t = SaveTiming.now()
        var failure: EditError?
        // Without the in-process lock: reads answer from memory meanwhile.
        do throws(EditError) { try writeManifest(held.bytes) } catch { failure = error }
        timing.add(.book, since: &t)
        lock.lock()
        if failure == nil { unsavedBook = nil }
        diskKey = currentDiskKey()
        writing = false
        lock.unlock()
        close(held.fd)
        if let failure {
            log("\(manifest): could not be written (\(failure)); the answered changes up to #\(held.seq) are safe in the journal, and book.json will be written with the next save or in \(Int(Self.retryDelay)) s")
            retryLater()
        }
        timing.report()
        queue.lock()
        if failure == nil {
            writtenSeq = max(writtenSeq, held.seq)
            writeFailed = false
        } else {
            writeFailed = true
            failedSeq = held.seq
        }
        leading = false
        queue.broadcast()
        queue.unlock()
    }

    /// Writes the state book.json fell behind on, if any (a failed write behind a batch, or a
    /// replay whose write failed). Holding both locks.
    func writeUnsaved() throws(EditError) {
        guard let bytes = unsavedBook else { return }
        try writeManifest(bytes)
        unsavedBook = nil
        diskKey = currentDiskKey()
        bookFileCaughtUp()
    }

    /// book.json now holds the journal's last entry: wakes `waitForBookFile`. Holding `lock`.
    func bookFileCaughtUp() {
        let seq = entries.last?.seq ?? 0
        queue.lock()
        writtenSeq = seq
        writeFailed = false
        queue.broadcast()
        queue.unlock()
    }

    /// Tries a failed book.json write again later, in case no save comes to do it. Not on the
    /// writer's own queue: `finishWrites` may wait for a write queued there.
    func retryLater() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.retryDelay) { [weak self] in
            guard let self else { return }
            do throws(EditError) { try self.finishWrites() } catch {
                self.log("\(self.manifest): still cannot be written (\(error)); trying again in \(Int(Self.retryDelay)) s")
                self.retryLater()
            }
        }
    }

    /// Makes book.json hold every answered change: waits for a write in progress, then does one
    /// that failed. The server calls it for every book when it stops, `picturebook history
    /// --restore` before it exits. Throws when book.json still cannot be written (the changes
    /// stay in the journal, and the next open replays them).
    public func finishWrites() throws(EditError) {
        queue.lock()
        while leading { queue.wait() }
        leading = true
        queue.unlock()
        defer {
            queue.lock()
            leading = false
            queue.broadcast()
            queue.unlock()
        }
        try locked { () throws(EditError) in
            try refreshIfChanged()
            try writeUnsaved()
        }
    }

    /// Waits until book.json holds the change that made `revision` (true), or until its write
    /// failed or `timeout` seconds passed (false). For what re-reads book.json after a save: the
    /// reader's copy of the book and the page's new images.
    public func waitForBookFile(revision: String, timeout: Double = 30) -> Bool {
        let seq = Int(revision.prefix { $0 != "-" }) ?? 0
        let deadline = Date().addingTimeInterval(timeout)
        queue.lock()
        defer { queue.unlock() }
        while writtenSeq < seq {
            // A failed write of an earlier batch says nothing of a later one still to come.
            if writeFailed && failedSeq >= seq { return false }
            if !queue.wait(until: deadline) { return writtenSeq >= seq }
        }
        return true
    }
}
