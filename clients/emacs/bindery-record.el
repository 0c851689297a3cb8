;;; bindery-record.el --- Record the exchange with binderyd as a transcript  -*- lexical-binding: t -*-

;;; Commentary:

;; M-x bindery-record starts a recording of the exchange with the daemon;
;; M-x bindery-record again stops and writes it to the file it asked for,
;; as a transcript (protocol.md, "Transcripts") that BinderyTesting's
;; Transcript.replay or bindery-replay replays against a fresh daemon.
;; Because a replay's daemon is fresh, a recording holds the exchange from
;; the daemon's start (initialize, each form's session/open) up to the
;; stop: a form already open can be recorded.  Stopping waits (up to 2 s)
;; for the answers to requests already sent.
;;
;; What is sent is encoded again as jsonrpc.el encodes it (the same
;; text); what is received is taken as it arrived, before parsing (a
;; parsed message cannot tell null from {}).

;;; Code:

(require 'cl-lib)
(require 'jsonrpc)
(require 'bindery-daemon)

(defconst bindery-record--kept 50000
  "Messages kept per connection; past that the start is lost, and stopping says so.")
(defvar bindery-record--log nil
  "The connection's exchange, newest first: (DIRECTION . TEXT).")
(defvar bindery-record--count 0
  "How many messages `bindery-record--log' holds.")
(defvar bindery-record--lost nil
  "Non-nil once the log has lost its start.")
(defvar bindery-record--daemon nil
  "The daemon's name, from its initialize answer.")
(defvar bindery-record--file nil
  "The file being recorded to, or nil when not recording.")

(defun bindery-record--note (direction text)
  "Keep TEXT, sent (DIRECTION `in') or received (`out')."
  (when (and (eq direction 'in) (string-match-p "\"method\":\"initialize\"" text))
    (setq bindery-record--log nil bindery-record--count 0 bindery-record--lost nil
          bindery-record--daemon nil))
  ;; bindery-dev's own notifications (daemon/reloaded ...): no daemon sends them.
  (unless (and (eq direction 'out) (string-match-p "\"method\":\"daemon/" text))
    (push (cons direction text) bindery-record--log)
    (cl-incf bindery-record--count))
  (when (> bindery-record--count bindery-record--kept)
    (setq bindery-record--log (butlast bindery-record--log (- bindery-record--count bindery-record--kept))
          bindery-record--count bindery-record--kept
          bindery-record--lost t))
  (when (and (eq direction 'out) (not bindery-record--daemon)
             (string-match "\"serverInfo\":{[^}]*\"name\":\"\\([^\"]*\\)\"" text))
    (setq bindery-record--daemon (match-string 1 text))))

(cl-defmethod jsonrpc-connection-send :after ((_conn bindery--connection) &rest args)
  "Note the message ARGS that went to the daemon, as jsonrpc.el encoded it."
  (let ((method (plist-get args :method)))
    (when (symbolp method)
      (setq args (plist-put (copy-sequence args) :method
                            (if (keywordp method) (substring (symbol-name method) 1) (symbol-name method)))))
    (bindery-record--note 'in (jsonrpc--json-encode `(:jsonrpc "2.0" ,@args)))))

(defun bindery-record--read (&rest _)
  "Note the message about to be parsed, if it is the daemon's."
  (when (and bindery--current
             (eq (current-buffer) (process-buffer (jsonrpc--process bindery--current))))
    (bindery-record--note 'out (buffer-substring-no-properties (point-min) (point-max)))))

(advice-add 'jsonrpc--json-read :before #'bindery-record--read)

(defun bindery-record--arguments ()
  "The daemon options a replay needs, from the daemon's command line."
  (let ((command (and bindery--current (bindery--conn-command bindery--current)))
        (arguments nil))
    (while command
      (cond ((equal (car command) "--deterministic") (push "--deterministic" arguments))
            ((and (equal (car command) "--seed") (cdr command))
             (push "--seed" arguments) (push (cadr command) arguments)))
      (setq command (cdr command)))
    (vconcat (nreverse arguments))))

;;;###autoload
(defun bindery-record-start (file)
  "Record the exchange with the daemon until `bindery-record-stop', for FILE."
  (interactive (list (read-file-name "Record the session to: " nil nil nil "session.jsonl")))
  (setq bindery-record--file (expand-file-name file))
  (message "Bindery: recording to %s (M-x bindery-record to stop)" bindery-record--file))

;;;###autoload
(defun bindery-record-stop ()
  "Write what was recorded since `bindery-record-start'; return the file.
The file is a transcript: a header, then the exchange since the daemon started."
  (interactive)
  (unless bindery-record--file (user-error "Bindery: not recording (M-x bindery-record)"))
  ;; Requests already sent get their answers in the recording (a form killed just before).
  (with-timeout (2 nil)
    (while (and bindery--current
                ;; jsonrpc.el's requests waiting for their answers: its public count where
                ;; it has one (newer jsonrpc.el), else its table of them (Emacs 28 and 29).
                (> (if (fboundp 'jsonrpc-continuation-count)
                       (funcall 'jsonrpc-continuation-count bindery--current)
                     (hash-table-count (jsonrpc--request-continuations bindery--current)))
                   0))
      (accept-process-output (jsonrpc--process bindery--current) 0.05)))
  (let ((file bindery-record--file)
        (lines (reverse bindery-record--log)))
    (setq bindery-record--file nil)
    (with-temp-file file
      (insert (json-serialize (list :framing "content-length"
                                    :daemon (or bindery-record--daemon "binderyd")
                                    :arguments (bindery-record--arguments)))
              "\n")
      (dolist (line lines)
        (insert (if (eq (car line) 'in) "{\"in\":" "{\"out\":") (cdr line) "}\n")))
    (message "Bindery: recorded %d messages to %s%s" (length lines) file
             (if bindery-record--lost "; it lost its start (too long): replays will fail" ""))
    file))

;;;###autoload
(defun bindery-record ()
  "Start recording the exchange with the daemon, or stop and save it."
  (interactive)
  (call-interactively (if bindery-record--file #'bindery-record-stop #'bindery-record-start)))

(provide 'bindery-record)

;;; bindery-record.el ends here
