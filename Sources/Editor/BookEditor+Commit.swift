// How a change becomes durable: group commit, and book.json written behind the answers.
//
// Saves that arrive while a batch is being made durable wait and go together in the next one.
// A batch runs each change in memory, checks the result, appends all the batch's journal lines
// with one write and one fsync, and answers every change right then: the journal is the durable
// record. book.json is replaced (atomically) on a writer thread that holds the book's lock file
// from the first batch it is handed until book.json holds the newest answered state; the next
// batch does not wait for it, but journals under the same lock file (the writer's descriptor),
// and the writer, once done, writes again if a newer state was answered meanwhile (coalescing).
// So book.json lags the journal by at most the batches answered during one write, never by an
// unanswered change, and is always a whole file; a kill at any moment loses no answered change:
// the next open replays what book.json lacks. Reads in this process answer from memory meanwhile
// (read-your-writes); a write that fails (a full disk) leaves the changes in the journal and is
// tried again first by the next batch (which is refused with the error while it still fails), by
// a timer, and on shutdown.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
            // This thread answers its own change once the batch is journaled; the book.json write
            // goes to the writer thread, and the next batch may start at once.
            if runBatch(batch) { writer.async { self.writeBehind() } }
            queue.lock()
            for j in batch { j.done = true }
            leading = false
            queue.broadcast()
        }
        queue.unlock()
        guard let result else { throw .storage("internal error: a change was not run") }
        return try result.get()
    }

    /// Runs a batch up to its journal fsync and hands the new state to the writer thread. True
    /// when the writer is to be started (it was idle: it now holds the batch's lock file).
    func runBatch(_ batch: [Job]) -> Bool {
        timing.start(jobs: batch.count)
        lock.lock()
        defer {
            lock.unlock()
            timing.report()
        }
        // While the writer runs it holds the lock file, for this batch too.
        let ownsFD = !writing
        let fd: Int32
        if ownsFD {
            do { fd = try lockFile() } catch {
                for job in batch { job.fail(error) }
                return false
            }
        } else {
            fd = heldFD
        }
        var handedOver = false
        defer { if ownsFD && !handedOver { close(fd) } }
        do throws(EditError) {
            var t = SaveTiming.now()
            try refreshIfChanged()
            // A write that failed after its batch was answered is done first, and while it fails
            // nothing new is taken (while the writer runs, it is the one bringing book.json up).
            if !writing { try writeUnsaved() }
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
                if try appendBatch() != nil {
                    timing.answered()
                    if ownsFD {
                        // The writer keeps the lock file until book.json has caught up.
                        writing = true
                        heldFD = fd
                        handedOver = true
                        queue.lock()
                        writerBusy = true
                        queue.unlock()
                    }
                }
            } catch {
                for job in applied { job.fail(error) }
            }
        } catch {
            // The lock, the re-read or the overdue book.json write failed: nothing ran.
            for job in batch { job.fail(error) }
        }
        return handedOver
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
        unsavedSeq = batch.last?.seq ?? unsavedSeq
        diskKey = currentDiskKey()
        publish()
        return batch.last?.seq
    }

    /// On the writer thread, holding the lock file a batch handed over: writes the newest
    /// answered state into book.json, again and again while batches answer newer ones, then lets
    /// go of the lock file. A failed write stops it (the state stays in `unsavedBook`; the next
    /// batch, the timer or shutdown tries again).
    func writeBehind() {
        while true {
            lock.lock()
            guard let bytes = unsavedBook else {
                // Cannot happen (the state is cleared only here while writing); let go anyway.
                finishWriting(failure: nil, wrote: unsavedSeq)
                lock.unlock()
                return
            }
            let seq = unsavedSeq
            lock.unlock()
            // Without the in-process lock: reads answer from memory, and the next batch runs.
            let t = SaveTiming.now()
            var failure: EditError?
            do throws(EditError) { try writeManifest(bytes) } catch { failure = error }
            SaveTiming.reportWrite(ms: SaveTiming.now() - t, seq: seq, bytes: bytes.count)
            lock.lock()
            if failure == nil && unsavedSeq > seq {
                // Batches were answered during the write: book.json holds `seq`; write the newest.
                lock.unlock()
                queue.lock()
                writtenSeq = max(writtenSeq, seq)
                queue.broadcast()
                queue.unlock()
                continue
            }
            if let failure {
                // Logged before `waitForBookFile` hears of the failure (tests look for the line).
                log("\(manifest): could not be written (\(failure)); the answered changes up to #\(unsavedSeq) are safe in the journal, and book.json will be written with the next save or in \(Int(Self.retryDelay)) s")
            }
            finishWriting(failure: failure, wrote: seq)
            lock.unlock()
            if failure != nil { retryLater() }
            return
        }
    }

    /// The writer is done (holding `lock`): releases the lock file and wakes whoever waits for
    /// book.json. After a failure, what book.json lacks is every answered change after its last
    /// good write, up to the newest.
    private func finishWriting(failure: EditError?, wrote seq: Int) {
        if failure == nil { unsavedBook = nil }
        // Still holding the lock file: the files are as we left them, so this is our own key.
        diskKey = currentDiskKey()
        writing = false
        close(heldFD)
        heldFD = -1
        let newest = unsavedSeq
        queue.lock()
        writerBusy = false
        if failure == nil {
            writtenSeq = max(writtenSeq, seq)
            writeFailed = false
        } else {
            writeFailed = true
            failedSeq = newest
        }
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

    /// Makes book.json hold every answered change: waits for the writer to be done, then does a
    /// write that failed. The server calls it for every book when it stops, `picturebook history
    /// --restore` before it exits. Throws when book.json still cannot be written (the changes
    /// stay in the journal, and the next open replays them).
    public func finishWrites() throws(EditError) {
        queue.lock()
        while leading || writerBusy { queue.wait() }
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
