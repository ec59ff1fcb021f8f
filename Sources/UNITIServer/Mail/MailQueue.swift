import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Sends the server's mail outside the requests that cause it. A route puts a message, or the
/// work that makes one (``Job``), on the queue and answers at once: how long a route takes never
/// depends on the mail server, and for a password reset not on whether the address has an
/// account at all (issue 27), since the account is looked up and the code made by the job.
///
/// One consumer task (``run()``, a service of the server's service group) sends one message after
/// another. A failed delivery is tried again after each of ``retryDelays`` and then given up; each
/// failure is logged with the recipient and the reason, never the message, which may carry a
/// code. A graceful shutdown drains the queue: what was queued is sent before the server exits,
/// and a message waiting for its next try gets one last try at once. The HTTP server stops
/// before the queue does (services stop in reverse order), so no answered request loses its mail.
public final class MailQueue: Service, Sendable {
    /// Work that makes the messages to send, run once by the consumer; it may read and write the
    /// store (a reset code is made here, after the request was answered).
    public typealias Job = @Sendable () async throws -> [OutgoingMail]

    public let mailer: any Mailer
    /// The waits before the second, third, ... try of a failed message.
    let retryDelays: [Duration]
    let logger: Logger
    private let state: Mutex<State>

    private enum Item: Sendable {
        case job(Job)
        case mail(OutgoingMail, attempt: Int)
    }

    private struct State {
        /// What the consumer reads; renewed when a run ends, for another run (a test's second
        /// server on the same environment).
        var stream: AsyncStream<Item>
        var continuation: AsyncStream<Item>.Continuation
        /// Jobs and messages queued and not yet sent or given up (what ``idle()`` waits for).
        var outstanding = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var stopping = false
        /// Messages waiting for their next try, by a number of their own.
        var waitingToRetry: [Int: (mail: OutgoingMail, attempt: Int)] = [:]
        var lastRetryNumber = 0
    }

    /// - Parameter retryDelays: by default 5 s, 30 s, 2 min, 10 min and 30 min: an SMTP server
    ///   that is away for a restart or most of an hour still gets the message.
    public init(mailer: any Mailer,
                retryDelays: [Duration] = [.seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800)],
                logger: Logger = Logger(label: "uniti-server.mail")) {
        self.mailer = mailer
        self.retryDelays = retryDelays
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        state = Mutex(State(stream: stream, continuation: continuation))
    }

    /// Queues work that makes messages (run once, in order with everything else queued).
    public func enqueue(_ job: @escaping Job) {
        add(.job(job))
    }

    /// Queues one message.
    public func enqueue(_ mail: OutgoingMail) {
        add(.mail(mail, attempt: 1))
    }

    private func add(_ item: Item) {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.outstanding += 1
            state.continuation.yield(item)
            return true
        }
        if !accepted { logger.error("mail not queued: the server is stopping") }
    }

    /// Returns once everything queued so far is sent or given up (tests wait for it before they
    /// read the spool; serving never needs it).
    public func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.outstanding == 0 { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// The consumer: sends until a graceful shutdown, then drains what is left.
    public func run() async {
        let stream = state.withLock { $0.stream }
        await withDiscardingTaskGroup { timers in
            await withGracefulShutdownHandler {
                for await item in stream {
                    for (mail, attempt) in await messages(of: item) {
                        guard let failure = await attemptDelivery(mail) else {
                            finishOne()
                            continue
                        }
                        guard attempt <= retryDelays.count else {
                            logger.error("a mail was not sent after \(attempt) tries: \(failure)")
                            finishOne()
                            continue
                        }
                        let delay = retryDelays[attempt - 1]
                        logger.warning("a mail failed (try \(attempt)): \(failure); trying again in \(delay)")
                        let number = state.withLock { state in
                            state.lastRetryNumber += 1
                            state.waitingToRetry[state.lastRetryNumber] = (mail, attempt + 1)
                            return state.lastRetryNumber
                        }
                        timers.addTask { [self] in
                            // Cancelled at shutdown: the message then gets its last try below.
                            try? await Task.sleep(for: delay)
                            state.withLock { state in
                                guard !state.stopping, let waiting = state.waitingToRetry.removeValue(forKey: number) else { return }
                                state.continuation.yield(.mail(waiting.mail, attempt: waiting.attempt))
                            }
                        }
                    }
                }
            } onGracefulShutdown: {
                self.state.withLock { state in
                    state.stopping = true
                    // The loop still gets everything queued before this, then ends.
                    state.continuation.finish()
                }
            }
            timers.cancelAll()
        }
        let left = state.withLock { state in
            defer { state.waitingToRetry = [:] }
            return Array(state.waitingToRetry.values)
        }
        for (mail, attempt) in left {
            if let failure = await attemptDelivery(mail) {
                logger.error("a mail was not sent after \(attempt) tries (the server stopped): \(failure)")
            }
            finishOne()
        }
        // Ready for another run (a test's second server on the same environment).
        state.withLock { state in
            (state.stream, state.continuation) = AsyncStream.makeStream(of: Item.self)
            state.stopping = false
        }
    }

    /// The messages of one queued item with their try numbers: a job runs here (once; a job that
    /// fails is logged and sends nothing).
    private func messages(of item: Item) async -> [(OutgoingMail, Int)] {
        switch item {
        case .mail(let mail, let attempt):
            return [(mail, attempt)]
        case .job(let job):
            var mails: [OutgoingMail] = []
            do {
                mails = try await job()
            } catch {
                logger.error("mail not prepared: \(error)")
            }
            state.withLock { $0.outstanding += mails.count }
            finishOne()
            return mails.map { ($0, 1) }
        }
    }

    /// Nil when sent, else why not.
    private func attemptDelivery(_ mail: OutgoingMail) async -> String? {
        do {
            try await mailer.send(mail)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    private func finishOne() {
        let waiters = state.withLock { state in
            state.outstanding -= 1
            guard state.outstanding == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
