;;; bindery-daemon.el --- Start, talk to and stop binderyd  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; One `binderyd' per Emacs, started on first use and spoken to through
;; `jsonrpc.el'.  This file knows nothing of forms: a form registers a
;; handler per session, and the connection calls it with `didChange'
;; notifications and with the news that the daemon is gone.

;;; Code:

(require 'cl-lib)
(require 'eieio)
(require 'jsonrpc)
(require 'bindery-settings)
(require 'bindery-mirror)

(defconst bindery--directory
  (file-name-directory
   (or load-file-name (bound-and-true-p byte-compile-current-file)
       buffer-file-name default-directory))
  "Directory of the Bindery Emacs package, to find the repository's build.")

(defvar bindery--current nil
  "The live connection to binderyd, or nil when none runs.")

(defvar bindery--waiters nil
  "Functions of (EVENT DATA) waiting for a shared daemon to answer again.
EVENT is `waiting' (DATA: the seconds before the next attempt),
`reconnected' (DATA: the new connection) or `stopped' (DATA: why).")

(defvar bindery--reconnect-timer nil
  "The timer of the next attempt, `trying' during one, or nil.
While non-nil, a connection ending does not start another round.")

(defclass bindery--connection (jsonrpc-process-connection)
  ((sessions :initform (make-hash-table) :accessor bindery--conn-sessions
             :documentation "Session id -> handler of (EVENT DATA).")
   (early :initform (make-hash-table) :accessor bindery--conn-early
          :documentation "Session id -> notifications that came before its form.")
   (mirror :initform (bindery-mirror-create) :accessor bindery--conn-mirror
           :documentation "What the daemon told this connection (bindery-mirror.el).")
   (schemas :initform nil :accessor bindery--conn-schemas
            :documentation "The view model schemas `initialize' returned.")
   (capabilities :initform nil :accessor bindery--conn-capabilities
                 :documentation "What the daemon agreed to, a plist like (:splices t).")
   (command :initarg :command :accessor bindery--conn-command
            :documentation "The command line the daemon was started with.")
   (stopping :initform nil :accessor bindery--conn-stopping
             :documentation "Non-nil once we asked the daemon to end."))
  :documentation "A connection to one binderyd process.")

;;; Finding and starting the daemon

(defun bindery--no-program-hint (program)
  "Say how to give arguments, when PROGRAM looks like a command line."
  (if (string-match-p " " program)
      (format "; a program with arguments is a list, like %S"
              (split-string program))
    ""))

(defun bindery--program (program source)
  "Return the absolute file name of PROGRAM, which SOURCE named.
A name without a directory is looked up on `exec-path', then in
~/.local/bin (where ./scripts/install puts Bindery's programs,
often not yet on a new user's PATH); ~ is expanded.  One that
cannot be run is a `user-error' naming SOURCE and the file, rather
than a dead pipe later."
  (let ((hint (bindery--no-program-hint program)))
    (if (not (file-name-directory program))
        (or (executable-find program)
            (let ((installed (expand-file-name program "~/.local/bin")))
              (and (file-executable-p installed)
                   (not (file-directory-p installed))
                   installed))
            (user-error "%s: no program %S on exec-path or in ~/.local/bin%s"
                        source program hint))
      (let ((file (expand-file-name program)))
        (cond ((not (file-exists-p file))
               (user-error "%s: %s does not exist%s" source file hint))
              ((file-directory-p file)
               (user-error "%s: %s is a directory, not a program" source file))
              ((not (file-executable-p file))
               (user-error "%s: %s is not executable" source file))
              (t file))))))

(defun bindery--found-command ()
  "Return the daemon's command found without `bindery-command', or nil."
  (or (let ((env (getenv "BINDERYD")))
        (and env (not (equal env ""))
             (list (bindery--program env "BINDERYD"))))
      (let ((found (executable-find "binderyd")))
        (and found (list found)))
      (let ((installed (expand-file-name "~/.local/bin/binderyd")))
        (and (file-executable-p installed) (list installed)))
      (cl-loop for build in '("release" "debug")
               for file = (expand-file-name
                           (concat "../../.build/" build "/binderyd")
                           bindery--directory)
               when (file-executable-p file) return (list file))))

(defun bindery--daemon-command ()
  "Return the command line that starts binderyd, or signal `user-error'."
  (append
   (let ((command (bindery--command-setting)))
     (if command
         (cons (bindery--program (car command) "bindery-command") (cdr command))
       (or (bindery--found-command)
           (user-error "Cannot find binderyd: run ./scripts/install in the Bindery repository, or set `bindery-command' or BINDERYD"))))
   (bindery--arguments-setting)))

(defun bindery--log-buffer ()
  "Return the buffer that collects the daemon's standard error."
  (or (get-buffer "*bindery-log*")
      (with-current-buffer (get-buffer-create "*bindery-log*")
        (special-mode)
        (current-buffer))))

(defun bindery--log (format-string &rest args)
  "Append FORMAT-STRING formatted with ARGS to *bindery-log*."
  (bindery--log-insert (concat (apply #'format format-string args) "\n")))

(defun bindery--log-insert (text)
  "Append TEXT at the end of *bindery-log*, following it if point was there."
  (with-current-buffer (bindery--log-buffer)
    (let ((inhibit-read-only t)
          (at-end (= (point) (point-max))))
      (save-excursion
        (goto-char (point-max))
        (insert text))
      (when at-end (goto-char (point-max))))))

(defun bindery--stderr-filter (proc text)
  "Copy TEXT the daemon wrote on stderr into *bindery-log*.
Its last 4096 characters are kept on PROC, for `bindery--last-words'."
  (let ((tail (concat (or (process-get proc 'bindery-tail) "") text)))
    (process-put proc 'bindery-tail (substring tail (max 0 (- (length tail) 4096)))))
  (bindery--log-insert text))

(defun bindery--last-words (process)
  "What `binderyd --remote' said on PROCESS's stderr before it ended, or nil.
Its stderr may still be arriving: it is read for up to a second first."
  (let ((stderr (process-get process 'bindery-stderr)))
    (when stderr
      (with-timeout (1 nil)
        (while (accept-process-output stderr 0.1)))
      (let ((tail (or (process-get stderr 'bindery-tail) "")))
        (when (string-match "binderyd --remote: error: \\([^\n]*\\)\n?\\'" tail)
          (match-string 1 tail))))))

(defun bindery--start (&optional command)
  "Start binderyd (COMMAND, else the one the options say), initialize it.
Return the connection."
  (let* ((command (or command (bindery--daemon-command)))
         (events-size (bindery--events-buffer-size-setting))
         ;; A form's directory may be remote or gone; the daemon needs none.
         (default-directory (expand-file-name "~/"))
         (stderr (make-pipe-process :name "binderyd stderr"
                                    :buffer (bindery--log-buffer)
                                    :coding 'utf-8-unix
                                    :noquery t
                                    :filter #'bindery--stderr-filter
                                    :sentinel #'ignore))
         (process (condition-case err
                      (make-process :name "binderyd"
                                    :command command
                                    :connection-type 'pipe
                                    :coding 'utf-8-emacs-unix
                                    :noquery t
                                    :stderr stderr)
                    (error (delete-process stderr)
                           (user-error "Cannot start %s: %s"
                                       (car command)
                                       (error-message-string err)))))
         (conn (bindery--connection
                :name "bindery"
                :process process
                :command command
                :events-buffer-scrollback-size events-size
                :notification-dispatcher #'bindery--dispatch
                :on-shutdown #'bindery--on-shutdown)))
    (process-put process 'bindery-stderr stderr)
    (bindery--log "--- started: %s" (mapconcat #'identity command " "))
    (setq bindery--current conn)
    (let ((init (condition-case err
                    (bindery-request
                     :initialize
                     (list :processId (emacs-pid)
                           :clientInfo (list :name "bindery.el")
                           ;; A list that gains a movie sends the movie,
                           ;; not the whole list (see `bindery-mirror-splice');
                           ;; every value comes with the daemon's text.
                           :capabilities (list :splices t :display t))
                     conn
                     ;; bindery-dev (the developer loop) builds the package
                     ;; before it answers: a first build can take minutes.
                     (when (equal (file-name-nondirectory (car command)) "bindery-dev")
                       (message "bindery-dev builds the package first (progress in *bindery-log*)")
                       600))
                  (error
                   (bindery--stop conn)
                   (setq bindery--current nil)
                   (user-error "binderyd did not initialize (%s); see M-x bindery-log"
                               (bindery--error-message err))))))
      (unless (equal (plist-get init :protocolVersion) 1)
        (display-warning 'bindery
                         (format "binderyd speaks protocol %S; bindery.el knows 1"
                                 (plist-get init :protocolVersion))))
      (setf (bindery--conn-schemas conn)
            (append (plist-get init :viewModels) nil))
      (setf (bindery--conn-capabilities conn) (plist-get init :capabilities)))
    conn))

;;;###autoload
(defun bindery-connection (&optional command)
  "Return the live connection to binderyd, starting the daemon if needed.
COMMAND starts it instead of the one the options say."
  (if (and bindery--current (jsonrpc-running-p bindery--current))
      bindery--current
    (bindery--start command)))

(declare-function bindery-dev--notification "bindery-dev" (conn method params))

(defun bindery--dispatch (conn method params)
  "Route notification METHOD with PARAMS from CONN to its session's form.
Other notifications are bindery-dev's (see bindery-dev.el)."
  (if (not (eq method 'didChange))
      (when (fboundp 'bindery-dev--notification)
        (bindery-dev--notification conn method params))
    (let* ((session (plist-get params :session))
           (handler (gethash session (bindery--conn-sessions conn))))
      (if handler
          ;; An error here would surface as a bare process-filter error.
          (condition-case-unless-debug err
              (funcall handler 'didChange params)
            (error (message "bindery: updating the form failed: %s"
                            (error-message-string err))))
        ;; A timer can tick between `session/open's answer and the form
        ;; being registered: keep its changes for the form.
        (push params (gethash session (bindery--conn-early conn)))))))

(defun bindery--register (conn session handler)
  "Send CONN's notifications for SESSION to HANDLER, those kept so far first."
  (puthash session handler (bindery--conn-sessions conn))
  (let ((early (nreverse (gethash session (bindery--conn-early conn)))))
    (remhash session (bindery--conn-early conn))
    (dolist (params early) (funcall handler 'didChange params))))

(defun bindery--unregister (conn session)
  "Forget SESSION on CONN: its form is gone."
  (bindery-mirror-drop (bindery--conn-mirror conn) session)
  (remhash session (bindery--conn-sessions conn))
  (remhash session (bindery--conn-early conn)))

(defun bindery--shared-p (conn)
  "Non-nil if CONN reaches a shared daemon, through `binderyd --remote'."
  (member "--remote" (bindery--conn-command conn)))

(defun bindery--on-shutdown (conn)
  "Tell the forms of CONN that its daemon has ended.
A shared daemon that died is reached again (`bindery--reconnect'):
its forms are told `lost' rather than `died', and those that wait
for it (`bindery--await-reconnection') get the new connection."
  (let* ((process (jsonrpc--process conn))
         (lost (and (not (bindery--conn-stopping conn)) (bindery--shared-p conn)))
         (reason (if (bindery--conn-stopping conn)
                     "binderyd was stopped"
                   (let ((said (bindery--last-words process)))
                     ;; binderyd --remote says how the shared daemon ended, and where its log is.
                     (concat (format "binderyd died (%s %s)"
                                     (process-status process)
                                     (process-exit-status process))
                             (if said (concat ": " said) ""))))))
    (bindery--log "--- %s" reason)
    (when (eq conn bindery--current)
      (setq bindery--current nil))
    (let (handlers)
      (maphash (lambda (_id handler) (push handler handlers))
               (bindery--conn-sessions conn))
      (clrhash (bindery--conn-sessions conn))
      (dolist (handler handlers)
        (with-demoted-errors "bindery: %S" (funcall handler (if lost 'lost 'died) reason))))
    (clrhash (bindery--conn-early conn))
    (when (and lost bindery--waiters (not bindery--reconnect-timer))
      (bindery--reconnect (bindery--conn-command conn) 0))))

;;; Reaching a shared daemon again

(defconst bindery--reconnect-delays '(0.25 0.5 1 2 4)
  "Seconds before each attempt to reach a shared daemon again; then every 5 s.
As the web page's connection.js does.")

(defun bindery--await-reconnection (waiter)
  "Give WAITER the reconnection's news (see `bindery--waiters')."
  (cl-pushnew waiter bindery--waiters))

(defun bindery--tell-waiters (event data)
  "Tell every waiter EVENT with DATA; after `reconnected', they wait no more."
  (let ((waiters bindery--waiters))
    (when (eq event 'reconnected) (setq bindery--waiters nil))
    (dolist (waiter waiters)
      (with-demoted-errors "bindery: %S" (funcall waiter event data)))))

(defun bindery--reconnect (command attempt)
  "Start COMMAND (`binderyd --remote ...') again after ATTEMPT's delay.
The forwarder starts a daemon when none answers; one that cannot be
reached is tried again, later each time, while some form waits."
  (let ((delay (or (nth attempt bindery--reconnect-delays) 5)))
    (bindery--log "--- reconnecting in %s s (attempt %d)" delay (1+ attempt))
    (bindery--tell-waiters 'waiting delay)
    (setq bindery--reconnect-timer
          (run-with-timer
           delay nil
           (lambda ()
             ;; A forwarder that fails ends its connection before `bindery--start'
             ;; returns: that is this attempt failing, not a daemon to reach again.
             (setq bindery--reconnect-timer 'trying)
             (if (not bindery--waiters)
                 (setq bindery--reconnect-timer nil)
               (let ((conn (condition-case err (bindery-connection command)
                             (error (bindery--log "--- could not reconnect: %s"
                                                  (error-message-string err))
                                    nil))))
                 (setq bindery--reconnect-timer nil)
                 (if (not conn)
                     (bindery--reconnect command (1+ attempt))
                   (bindery--log "--- reconnected")
                   (bindery--tell-waiters 'reconnected conn)))))))))

(defun bindery--stop (conn)
  "Ask CONN's daemon to end politely, then make sure it has."
  (setf (bindery--conn-stopping conn) t)
  (let ((process (jsonrpc--process conn)))
    (when (process-live-p process)
      (ignore-errors (bindery-request :shutdown nil conn 2))
      (ignore-errors (jsonrpc-notify conn :exit nil))
      (with-timeout (2 nil)
        (while (process-live-p process)
          (accept-process-output process 0.05)))
      (when (process-live-p process)
        (delete-process process)))))

;;;###autoload
(defun bindery-shutdown ()
  "Stop binderyd; its forms stop being live.  `bindery-open' starts a new one."
  (interactive)
  (if (not (and bindery--current (jsonrpc-running-p bindery--current)))
      (message "binderyd is not running")
    (bindery--stop bindery--current)
    (setq bindery--current nil))
  (when bindery--reconnect-timer
    (when (timerp bindery--reconnect-timer) (cancel-timer bindery--reconnect-timer))
    (setq bindery--reconnect-timer nil)
    (bindery--tell-waiters 'stopped "M-x bindery-shutdown stopped reconnecting")
    (setq bindery--waiters nil)))

(defun bindery--kill-emacs ()
  "Stop the daemon when Emacs exits."
  (when bindery--current
    (ignore-errors (bindery--stop bindery--current))))

(add-hook 'kill-emacs-hook #'bindery--kill-emacs)

;;;###autoload
(defun bindery-log ()
  "Show *bindery-log*, where binderyd's standard error goes."
  (interactive)
  (pop-to-buffer (bindery--log-buffer)))

;;; Requests

(defun bindery--error-code (err)
  "Return the JSON-RPC code of ERR, a `jsonrpc-error' condition."
  (alist-get 'jsonrpc-error-code (cdr err)))

(defun bindery--error-message (err)
  "Return the message of ERR, a `jsonrpc-error' condition."
  (or (alist-get 'jsonrpc-error-message (cdr err))
      (error-message-string err)))

(defun bindery-request (method params &optional conn timeout)
  "Send METHOD with PARAMS to binderyd and return the result.
METHOD is a string or a symbol, PARAMS a plist or a hash table; CONN
defaults to the current connection.  An error answer, or none within
TIMEOUT seconds (default 10), signals `jsonrpc-error'.  For quick
calls only: this waits for the answer."
  (let ((conn (or conn (bindery-connection)))
        done result error)
    ;; Not `jsonrpc-request': it throws out of the process filter, and
    ;; whatever came in the same read after the answer (a timer's
    ;; didChange) would wait there until the daemon writes again.
    (bindery--async conn (if (stringp method) (intern method) method) params
                    :success (lambda (r) (setq done t result r))
                    :error (lambda (e) (setq done t error e)))
    (with-timeout ((or timeout 10)
                   (setq error (list :code -32603 :message
                                     (format "no answer to %s" method))))
      (while (not done)
        (accept-process-output nil 0.05)))
    (when error
      (signal 'jsonrpc-error
              (list (format "%s failed: %s" method (plist-get error :message))
                    (cons 'jsonrpc-error-code (plist-get error :code))
                    (cons 'jsonrpc-error-message (plist-get error :message))
                    (cons 'jsonrpc-error-data (plist-get error :data)))))
    result))

(cl-defun bindery--async (conn method params &key success error timeout)
  "Send METHOD with PARAMS on CONN without waiting; return the request id.
SUCCESS is called with the result, ERROR with the error plist (also
when the daemon cannot be written to any more, and with :timeout t
when TIMEOUT seconds pass without an answer); no timeout if nil."
  (condition-case err
      (progn
        (jsonrpc-async-request conn method params
                               :success-fn (or success #'ignore)
                               :error-fn (or error #'ignore)
                               ;; Without one, jsonrpc.el forgets the
                               ;; request silently.
                               :timeout-fn
                               (lambda ()
                                 (when error
                                   (funcall error
                                            (list :timeout t :message
                                                  (format "no answer after %s s"
                                                          timeout)))))
                               :timeout timeout)
        ;; `jsonrpc-async-request' returns nil in jsonrpc 1.0.14, yet
        ;; `$/cancelRequest' needs the id: the one it just counted.
        (jsonrpc--next-request-id conn))
    ;; The daemon died and its sentinel has not run yet.
    (error (when error
             (funcall error (list :code -1 :message
                                  (format "binderyd is gone (%s)"
                                          (error-message-string err)))))
           nil)))

;;;###autoload
(defun bindery-advance-clock (ms)
  "Move a `--deterministic' daemon's virtual clock forward by MS milliseconds."
  (interactive (list (read-number "Advance the clock by (ms): " 1000)))
  (let ((result (bindery-request :clock/advance (list :ms ms))))
    (when (called-interactively-p 'interactive)
      (message "binderyd clock: %s ms" (plist-get result :now)))
    result))

(defun bindery--schema (conn type)
  "Return the schema of view model TYPE from CONN, or signal `user-error'."
  (or (cl-find type (bindery--conn-schemas conn)
               :key (lambda (s) (plist-get s :type)) :test #'equal)
      (user-error "Unknown view model type %S; known: %s"
                  type (mapconcat #'identity (bindery-types conn) ", "))))

(defun bindery-types (&optional conn)
  "Return the names of the view model types binderyd (CONN) serves."
  (mapcar (lambda (s) (plist-get s :type))
          (bindery--conn-schemas (or conn (bindery-connection)))))

(provide 'bindery-daemon)
;;; bindery-daemon.el ends here
