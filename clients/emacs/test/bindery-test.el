;;; bindery-test.el --- ERT tests of bindery.el against the real binderyd  -*- lexical-binding: t -*-

;;; Commentary:

;; Run by test/run.  Every test drives forms the way a person would:
;; move with `widget-forward', type with `self-insert-command', press
;; buttons with `widget-button-press', and then reads the buffer's text.
;; Waits poll `accept-process-output' until a condition holds (or a
;; generous timeout passes); no sleep is ever an assertion.  Most tests
;; share one daemon started with --deterministic, whose clock they move
;; through the package's own connection.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'bindery)

(defconst bindery-test--file (or load-file-name buffer-file-name)
  "This file, to find the repository it belongs to.")

(defvar bindery-test-timeout 20
  "Seconds a test waits for a condition before failing.")

;;; Helpers

(defun bindery-test--text (&optional buffer)
  "Return the text of BUFFER (or the current one) without properties."
  (with-current-buffer (or buffer (current-buffer))
    (buffer-substring-no-properties (point-min) (point-max))))

(defun bindery-test--wait (predicate &optional what timeout)
  "Let Emacs read the daemon until PREDICATE holds, or fail about WHAT.
TIMEOUT defaults to `bindery-test-timeout' seconds."
  (let ((deadline (+ (float-time) (or timeout bindery-test-timeout)))
        (buffer (current-buffer)))
    (while (and (not (with-current-buffer buffer (funcall predicate)))
                (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (or (with-current-buffer buffer (funcall predicate))
        (ert-fail (list "Timed out waiting" (or what predicate)
                        (and (buffer-live-p buffer) (bindery-test--text buffer)))))))

(defun bindery-test--wait-text (regexp &optional buffer timeout)
  "Wait until BUFFER's text matches REGEXP; return the text."
  (with-current-buffer (or buffer (current-buffer))
    (bindery-test--wait (lambda () (string-match-p regexp (bindery-test--text)))
                        regexp timeout)
    (bindery-test--text)))

(defun bindery-test--revision ()
  "The revision of the form's session its connection's mirror holds."
  (bindery-mirror-session-revision
   (bindery-mirror-get (bindery--conn-mirror bindery--conn) bindery--session)))

(defun bindery-test--settle ()
  "Wait until this form has nothing unsent or unanswered."
  (bindery-test--wait
   (lambda ()
     (and (cl-notany #'bindery--field-timer bindery--fields)
          (not (bindery--writes-pending-p))
          (cl-notany #'bindery--command-ids bindery--commands)))
   "the form to settle"))

(defun bindery-test--daemon (&rest arguments)
  "Make sure the daemon runs with ARGUMENTS; return the connection."
  (let ((conn bindery--current))
    (unless (and conn (jsonrpc-running-p conn)
                 (equal bindery-arguments arguments))
      (when conn (bindery--stop conn))
      (setq bindery-arguments arguments))
    (bindery-connection)))

(defmacro bindery-test--with-forms (bindings &rest body)
  "Open forms as BINDINGS ((VAR TYPE [KEY ARGS]) ...), run BODY, kill them."
  (declare (indent 1) (debug t))
  `(let ,(mapcar (lambda (b) (list (car b) nil)) bindings)
     (unwind-protect
         (progn
           ,@(mapcar (lambda (b) `(setq ,(car b) (bindery-open ,@(cdr b))))
                     bindings)
           ,@body)
       ,@(mapcar (lambda (b) `(when (buffer-live-p ,(car b)) (kill-buffer ,(car b))))
                 bindings))))

(defun bindery-test--goto (predicate)
  "Move with `widget-forward' from the top to the widget PREDICATE accepts."
  (goto-char (point-min))
  (widget-forward 1)
  (let ((start (point)) (n 0))
    (while (and (not (funcall predicate (widget-at (point)))) (< n 50))
      (widget-forward 1)
      (cl-incf n)
      (when (= (point) start) (setq n 50)))
    (should (funcall predicate (widget-at (point))))
    (widget-at (point))))

(defun bindery-test--goto-field (name)
  "Move to the widget of the field NAME, as TAB would."
  (bindery-test--goto
   (lambda (w) (let ((f (and w (widget-get w :bindery-field))))
                 (and f (equal (bindery--field-name f) name))))))

(defun bindery-test--goto-button (label)
  "Move to the button LABEL, as TAB would."
  (bindery-test--goto
   (lambda (w) (let ((c (and w (widget-get w :bindery-command))))
                 (and c (equal (bindery--command-label c) label))))))

(defun bindery-test--type (text)
  "Type TEXT at point one key at a time, as a person would."
  (dolist (char (string-to-list text))
    (let ((last-command-event char)
          (this-command 'self-insert-command))
      (self-insert-command 1))))

(defun bindery-test--erase-field ()
  "Delete the text of the field at point the way C-k would."
  (goto-char (widget-field-start (widget-field-at (point))))
  (widget-kill-line))

(defun bindery-test--press (label)
  "Press the button LABEL with RET."
  (bindery-test--goto-button label)
  (widget-button-press (point)))

(defun bindery-test--key (keys)
  "Run the command bound to KEYS at point, as typing them would."
  (call-interactively (key-binding (kbd keys))))

(defun bindery-test--around (position direction)
  "Return the text of POSITION's line before it (DIRECTION -1) or after it (1)."
  (save-excursion
    (goto-char position)
    (if (< direction 0)
        (buffer-substring-no-properties (line-beginning-position) position)
      (buffer-substring-no-properties position (line-end-position)))))

(defun bindery-test--messages ()
  "Return the text of *Messages*."
  (with-current-buffer (messages-buffer) (buffer-string)))

(defmacro bindery-test--refusal (&rest body)
  "Return the message of the `user-error' BODY signals; fail if none."
  `(error-message-string (should-error (progn ,@body) :type 'user-error)))

(defmacro bindery-test--with-home (var &rest body)
  "Run BODY with VAR a new directory that is also ~; delete it after."
  (declare (indent 1) (debug t))
  `(let* ((,var (make-temp-file "bindery-home" t))
          (process-environment (cons (concat "HOME=" ,var) process-environment)))
     (unwind-protect (progn ,@body)
       (delete-directory ,var t))))

;; pgrep run directly, not through a shell: `sh -c' (dash) stays the parent of what it runs,
;; and its own command line holds the pattern, so it would be counted as a daemon.
(defun bindery-test--daemon-pids (socket)
  "The pids of the daemons listening on SOCKET."
  (process-lines-ignore-status "pgrep" "-f" "--" (concat "--listen " socket)))

(defun bindery-test--file (dir name modes)
  "Make the file NAME in DIR, a shell script, with MODES; return its name."
  (let ((file (expand-file-name name dir)))
    (write-region "#!/bin/sh\nexit 0\n" nil file nil 'silent)
    (set-file-modes file modes)
    file))

;;; Values, without a daemon

(ert-deftest bindery-test-values ()
  "Lists' elements in the compact form; members in the daemon's text."
  (should (equal (bindery--format-inline nil) "(none)"))
  (should (equal (bindery--format-inline :json-false) "no"))
  (should (equal (bindery--format-inline 3.0) "3.0"))
  (should (equal (bindery--format-inline '(:firstName "Ada" :n 2))
                 "firstName: Ada, n: 2"))
  (should (equal (bindery--format-inline [1 "a" (:x t)]) "[1, a, {x: yes}]"))
  (should (equal (bindery--format-lines [(:id "1") (:id "2")])
                 '("id: 1" "id: 2")))
  (should (equal (bindery--format-lines "a\nb") '("a" "b")))
  (should (equal (bindery--format-lines []) '("(empty)")))
  (let ((display (make-hash-table :test #'equal)))
    (puthash "n" "3" display)
    (should (equal (bindery--member-text "n" 3 display) "3"))
    (should (equal (bindery--member-text "s" "a\nb" display) "a\nb"))
    (should (equal (bindery--member-text "l" [1 2] display) "[1,2]"))
    (should (equal (bindery--member-text "o" nil display) "")))
  (should (equal (bindery--refusal '(:code -32602 :message "x" :data (:expected "a number")))
                 "expected a number"))
  (should (equal (bindery--refusal '(:code -32003 :message "read-only")) "read-only"))
  (should (equal (bindery--json-text '(:a :json-false :b nil)) "{\"a\":false,\"b\":null}"))
  (should (equal (hash-table-count (bindery--args "{}")) 0))
  (should-error (bindery--args "[1]") :type 'user-error))

(ert-deftest bindery-test-daemon-start-failures ()
  "A daemon that cannot start, or dies at once, is a `user-error'."
  (let ((bindery--current nil))
    (let ((bindery-command '("/nonexistent/binderyd")))
      (should-error (bindery-connection) :type 'user-error))
    ;; One that exits before answering.  (It must still be reading when
    ;; Emacs writes: batch Emacs 28 dies of SIGPIPE otherwise.)
    (let ((bindery-command '("sh" "-c" "sleep 0.3; exit 3")))
      (should-error (bindery-connection) :type 'user-error)
      (should (null bindery--current)))))

(ert-deftest bindery-test-stderr-log ()
  "The daemon's stderr goes to *bindery-log*, never into a form."
  (let* ((bindery--current nil)
         (bindery-arguments nil)
         (bindery-command
          (list "sh" "-c" "echo from-the-daemon-stderr >&2; exec \"$BINDERYD\""))
         (form (bindery-open "email")))
    (unwind-protect
        (progn
          (bindery-test--wait-text "from-the-daemon-stderr" (bindery--log-buffer))
          (should-not (string-match-p "from-the-daemon" (bindery-test--text form))))
      (kill-buffer form)
      (bindery-shutdown))))

(ert-deftest bindery-test-wire ()
  "What goes over the pipe: the splices capability, cancel by id, shutdown then exit."
  (let* ((record (make-temp-file "bindery-record" nil ".jsonl"))
         (bindery--current nil)
         (bindery-arguments (list "--deterministic" "--record" record))
         (form (bindery-open "login"))
         conn)
    (unwind-protect
        (with-current-buffer form
          (setq conn bindery--conn)
          (bindery-test--type "Ada")
          (widget-forward 1)
          (bindery-test--type "Lovelace")
          (bindery-test--press "Login")
          (bindery-test--wait-text "Logging in: +true")
          (let ((id (car (bindery--command-ids (car bindery--commands)))))
            (bindery-test--key "C-c C-k")
            (bindery-test--wait-text "! Request cancelled")
            (kill-buffer form)
            ;; What Emacs does on exit.
            (bindery--kill-emacs)
            (should-not (process-live-p (jsonrpc--process conn)))
            (let ((in (with-temp-buffer
                        (insert-file-contents record)
                        (cl-loop for line in (split-string (buffer-string) "\n" t)
                                 for message = (json-parse-string line :object-type 'alist)
                                 when (alist-get 'in message) collect it))))
              (should (equal (alist-get 'capabilities
                                        (alist-get 'params (car in)))
                             '((splices . t) (display . t))))
              (should (string-match-p "\"capabilities\":{\"splices\":true,\"display\":true}"
                                      (with-temp-buffer (insert-file-contents record)
                                                        (buffer-string))))
              (should (equal (bindery--conn-capabilities conn) '(:splices t :display t)))
              (should (cl-find-if (lambda (m) (and (equal (alist-get 'method m) "invoke")
                                                   (equal (alist-get 'id m) id)))
                                  in))
              (should (equal (alist-get 'params
                                        (cl-find "$/cancelRequest" in
                                                 :key (lambda (m) (alist-get 'method m))
                                                 :test #'equal))
                             `((id . ,id))))
              (should (cl-find "session/close" in :key (lambda (m) (alist-get 'method m))
                               :test #'equal))
              (should (equal (mapcar (lambda (m) (alist-get 'method m)) (last in 2))
                             '("shutdown" "exit"))))))
      (when (buffer-live-p form) (kill-buffer form))
      (when conn (bindery--stop conn))
      (delete-file record))))

(ert-deftest bindery-test-early-notifications ()
  "Changes that arrive before a form registers are given to it then."
  (let ((conn (bindery-test--daemon "--deterministic"))
        seen)
    (bindery--dispatch conn 'didChange '(:session 9999 :revision 1 :changes (:a 1)))
    (bindery--dispatch conn 'didChange '(:session 9999 :revision 2 :changes (:a 2)))
    (bindery--register conn 9999 (lambda (_event params)
                                   (push (plist-get params :revision) seen)))
    (unwind-protect
        (progn
          (should (equal seen '(2 1)))
          (bindery--dispatch conn 'didChange '(:session 9999 :revision 3 :changes (:a 3)))
          (should (equal seen '(3 2 1))))
      (bindery--unregister conn 9999))))

;;; Settings: what each option accepts, and what it says otherwise

(defconst bindery-test--command-expects
  "a program (a string, like \"~/.local/bin/binderyd\") or a list: the program, then its arguments")

(ert-deftest bindery-test-setting-command ()
  "`bindery-command': a program (a string) or a list (or vector) of it and its arguments."
  (bindery-test--with-home home
    (let ((program (bindery-test--file home "binderyd" #o755))
          (installed (progn (make-directory (expand-file-name ".local/bin" home) t)
                            (bindery-test--file (expand-file-name ".local/bin" home)
                                                "bindery-installed" #o755)))
          (sh (executable-find "sh"))
          (bindery-arguments '("--deterministic")))
      (pcase-dolist (`(,value ,command)
                     `((,program (,program))
                       ("~/binderyd" (,program))          ; ~ expanded
                       ("sh" (,sh))                        ; found on exec-path
                       ;; then in ~/.local/bin, where ./scripts/install puts it
                       (("bindery-installed" "--remote" "auto") (,installed "--remote" "auto"))
                       ((,program "--seed" "2") (,program "--seed" "2"))
                       (["~/binderyd" "--seed" 2] (,program "--seed" "2"))
                       (("sh" "--state" "~/s") (,sh "--state" ,(expand-file-name "s" home)))))
        (let ((bindery-command value))
          (should (equal (bindery--daemon-command)
                         (append command '("--deterministic"))))))
      ;; Unset, or empty: found, from BINDERYD first.
      (dolist (value '(nil "" []))
        (let ((bindery-command value))
          (should (equal (bindery--daemon-command)
                         (list (expand-file-name (getenv "BINDERYD")) "--deterministic")))))
      (dolist (value '(binderyd 42 t ("sh" . "x") (binderyd "--seed") ("sh" (nested))))
        (let ((bindery-command value))
          (should (equal (bindery-test--refusal (bindery--daemon-command))
                         (format "bindery-command should be %s, not %S"
                                 bindery-test--command-expects value)))))
      (pcase-dolist (`(,value ,message)
                     `(("/nonexistent/binderyd"
                        "bindery-command: /nonexistent/binderyd does not exist")
                       ("~/nonexistent"
                        ,(format "bindery-command: %s/nonexistent does not exist" home))
                       (,(bindery-test--file home "plain" #o644)
                        ,(format "bindery-command: %s/plain is not executable" home))
                       (,home
                        ,(format "bindery-command: %s is a directory, not a program" home))
                       (("/nonexistent/binderyd" "--deterministic")
                        "bindery-command: /nonexistent/binderyd does not exist")
                       ("binderyd --deterministic"
                        "bindery-command: no program \"binderyd --deterministic\" on exec-path or in ~/.local/bin; a program with arguments is a list, like (\"binderyd\" \"--deterministic\")")))
        (let ((bindery-command value))
          (should (equal (bindery-test--refusal (bindery--daemon-command)) message))))
      (let ((bindery-command nil)
            (process-environment (cons "BINDERYD=/nonexistent/binderyd" process-environment)))
        (should (equal (bindery-test--refusal (bindery--daemon-command))
                       "BINDERYD: /nonexistent/binderyd does not exist"))))))

(ert-deftest bindery-test-setting-arguments ()
  "`bindery-arguments': a list (or vector) of strings, or one string split at spaces."
  (bindery-test--with-home home
    (pcase-dolist (`(,value ,arguments)
                   `((nil nil)
                     ("" nil)
                     ("--deterministic" ("--deterministic"))
                     (" --deterministic  --seed 3 " ("--deterministic" "--seed" "3"))
                     (("--deterministic") ("--deterministic"))
                     (["--seed" 3] ("--seed" "3"))
                     (("--record" "~/r.jsonl") ("--record" ,(expand-file-name "r.jsonl" home)))))
      (let ((bindery-arguments value))
        (should (equal (bindery--arguments-setting) arguments))))
    (dolist (value '(deterministic 3 ("--seed" seed) ("--x" . "y")))
      (let ((bindery-arguments value))
        (should (equal (bindery-test--refusal (bindery--arguments-setting))
                       (format "bindery-arguments should be a list of strings, like (\"--deterministic\"), or one string of arguments separated by spaces, not %S"
                               value)))))))

(ert-deftest bindery-test-setting-numbers ()
  "The numeric options take numbers, or numbers written as strings; nothing else."
  (pcase-dolist (`(,option ,read ,good ,bad ,expects)
                 '((bindery-send-delay bindery--send-delay-setting
                    ((0.15 0.15) (0 0) ("0.3" 0.3) (" 1 " 1))
                    (-1 "soon" nil fast "1e999")
                    "a number of seconds, like 0.15")
                   (bindery-field-width bindery--field-width-setting
                    ((30 30) ("40" 40) (12.6 13))
                    (0 -3 "wide" nil)
                    "a number of columns, like 30")
                   (bindery-command-timeout bindery--command-timeout-setting
                    ((nil nil) (5 5) ("2.5" 2.5))
                    (0 -1 "never" t)
                    "a number of seconds greater than 0, or nil to wait forever")
                   (bindery-events-buffer-size bindery--events-buffer-size-setting
                    ((nil nil) (0 0) ("2000" 2000) (1e3 1000))
                    (-1 "all" t)
                    "a number of characters (0 keeps none), or nil to keep all")))
    (pcase-dolist (`(,value ,number) good)
      (should (equal (cl-progv (list option) (list value) (funcall read)) number)))
    (dolist (value bad)
      (should (equal (cl-progv (list option) (list value)
                       (bindery-test--refusal (funcall read)))
                     (format "%s should be %s, not %S" option expects value))))))

(ert-deftest bindery-test-setting-custom-types ()
  "Each option's :type takes the values its documentation gives, so customize shows them."
  (pcase-dolist (`(,option . ,values)
                 '((bindery-command nil "/x/binderyd" ("/x/binderyd" "--deterministic"))
                   (bindery-arguments nil ("--deterministic") "--deterministic --seed 3")
                   (bindery-events-buffer-size 0 nil 2000)
                   (bindery-send-delay 0.15 1)
                   (bindery-field-width 30)
                   (bindery-command-timeout nil 5 2.5)))
    (should (custom-variable-p option))
    (let ((type (widget-convert (get option 'custom-type))))
      (dolist (value values)
        (should (widget-apply type :match value)))))
  ;; A string is offered as the program, a list as program and arguments.
  (let ((choices (widget-get (widget-convert (get 'bindery-command 'custom-type)) :args)))
    (cl-flet ((tag (value) (widget-get (cl-find-if (lambda (w) (widget-apply w :match value))
                                                   choices)
                                       :tag)))
      (should (equal (tag "/x/binderyd") "Program"))
      (should (equal (tag '("/x/binderyd" "--seed" "2")) "Program and arguments")))))

(ert-deftest bindery-test-setting-command-opens-a-form ()
  "(setq bindery-command \"/abs/path/binderyd\") opens a real form; a bad value says why."
  (let ((bindery--current nil)
        (bindery-command (getenv "BINDERYD"))
        (bindery-arguments "--deterministic --seed 7")
        (bindery-events-buffer-size "100000")
        form)
    (unwind-protect
        (progn
          (setq form (bindery-open "email"))
          (with-current-buffer form
            (should (equal (bindery--conn-command bindery--conn)
                           (list (expand-file-name (getenv "BINDERYD"))
                                 "--deterministic" "--seed" "7")))
            (bindery-test--type "ada@example.com")
            (bindery-test--wait-text "Validation message: Email is valid")
            (should (string-match-p "initialize" (bindery-test--text "*bindery events*")))))
      (when (buffer-live-p form) (kill-buffer form))
      (bindery-shutdown)
      (when (get-buffer "*bindery events*") (kill-buffer "*bindery events*"))))
  ;; Refused before anything starts: no daemon, no form.
  (let ((bindery--current nil)
        (forms (length (cl-remove-if-not (lambda (b) (string-prefix-p "*bindery: " (buffer-name b)))
                                         (buffer-list)))))
    (let ((bindery-command 'binderyd))
      (should (equal (bindery-test--refusal (bindery-open "email"))
                     (format "bindery-command should be %s, not binderyd"
                             bindery-test--command-expects))))
    (let ((bindery-command "/nonexistent/binderyd"))
      (should (equal (bindery-test--refusal (bindery-open "email"))
                     "bindery-command: /nonexistent/binderyd does not exist")))
    (let ((bindery-command (getenv "BINDERYD"))
          (bindery-events-buffer-size -5))
      (should (string-prefix-p "bindery-events-buffer-size should be"
                               (bindery-test--refusal (bindery-open "email")))))
    (should-not bindery--current)
    (should (= forms (length (cl-remove-if-not (lambda (b) (string-prefix-p "*bindery: " (buffer-name b)))
                                               (buffer-list)))))))

(ert-deftest bindery-test-setting-form-options ()
  "A form's options work written as strings; bad ones are refused before it opens."
  (bindery-test--daemon "--deterministic")
  (let ((bindery-field-width "12")
        (bindery-send-delay "0.05"))
    (bindery-test--with-forms ((form "email"))
      (with-current-buffer form
        (should (string-match-p "^Email: +\\[ \\{12\\}\\]$" (bindery-test--text)))
        (bindery-test--type "ada@example.com")
        (bindery-test--wait-text "Validation message: Email is valid"))))
  (pcase-dolist (`(,option ,value ,message)
                 '((bindery-send-delay "soon"
                    "bindery-send-delay should be a number of seconds, like 0.15, not \"soon\"")
                   (bindery-field-width 0
                    "bindery-field-width should be a number of columns, like 30, not 0")
                   (bindery-command-timeout "never"
                    "bindery-command-timeout should be a number of seconds greater than 0, or nil to wait forever, not \"never\"")))
    (let ((sessions (hash-table-count (bindery--conn-sessions bindery--current))))
      (should (equal (cl-progv (list option) (list value)
                       (bindery-test--refusal (bindery-open "email")))
                     message))
      (should (= sessions (hash-table-count (bindery--conn-sessions bindery--current))))))
  ;; M-x bindery-open says so before asking for a type.
  (let ((bindery-field-width "wide") asked)
    (cl-letf (((symbol-function 'completing-read)
               (lambda (&rest _) (setq asked t) "email")))
      (should (equal (bindery-test--refusal (call-interactively #'bindery-open))
                     "bindery-field-width should be a number of columns, like 30, not \"wide\"")))
    (should-not asked))
  ;; Made bad while a form is open: typing still sends, after the standard
  ;; delay, and the echo area says why.
  (bindery-test--with-forms ((form "email"))
    (with-current-buffer form
      (let ((bindery-send-delay 'soon))
        (bindery-test--type "a@b.co")
        (bindery-test--wait-text "Validation message: Email is valid")
        (should (string-match-p
                 "bindery-send-delay should be a number of seconds, like 0\\.15, not soon; using 0\\.15"
                 (bindery-test--messages)))))))

(ert-deftest bindery-test-setting-command-timeout ()
  "`bindery-command-timeout' \"0.3\": a command with no answer by then is given up on and cancelled."
  (bindery-test--daemon "--deterministic")
  (let ((bindery-command-timeout "0.3"))
    (bindery-test--with-forms ((form "login"))
      (with-current-buffer form
        (bindery-test--goto-field "firstName")
        (bindery-test--type "Ada")
        (widget-forward 1)
        (bindery-test--type "Lovelace")
        (bindery-test--press "Login")
        (bindery-test--wait-text "Logging in: +true")
        ;; The virtual clock does not move: the login never answers.
        (bindery-test--wait-text
         "! no answer after 0\\.3 s (bindery-command-timeout); cancelled")
        (should (null (bindery--command-ids (car bindery--commands))))
        ;; The daemon was told: the login stopped there too.
        (should-not (string-match-p "running…" (bindery-test--wait-text "Logging in: +false")))))))

;;; Forms of every seed type

(ert-deftest bindery-test-email ()
  "Typing an address shows \"Email is valid\"; point never moves."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "email"))
    (with-current-buffer form
      (should (string-match-p "\\`\\*bindery: email [0-9]+\\*\\'" (buffer-name)))
      (should (string-match-p "\\`email  session" (bindery-test--text)))
      (should (string-match-p "Validation message: Email is invalid" (bindery-test--text)))
      ;; The form opens with point in its first field.
      (should (equal (bindery--field-name
                      (widget-get (widget-field-at (point)) :bindery-field))
                     "email"))
      (bindery-test--type "ada@example.com")
      (let ((typed-point (point)))
        (bindery-test--wait-text "Validation message: Email is valid")
        (should (= (point) typed-point)))
      (let ((text (bindery-test--text)))
        (should (string-match-p "Email: +\\[ada@example\\.com +\\]" text))
        (should (string-match-p "Valid: +true" text)))
      ;; Another window on the form keeps its point inside a changing output.
      (delete-other-windows)
      (switch-to-buffer form)
      (let ((other (split-window-below)))
        (set-window-point other (save-excursion (goto-char (point-min))
                                                (search-forward "Email is ")))
        (delete-char -2)
        (bindery-test--wait-text "Email is invalid")
        (should (equal (bindery-test--around (window-point other) -1)
                       "Validation message: Email is "))
        (bindery-test--type "om")
        (bindery-test--wait-text "Email is valid")
        (should (equal (bindery-test--around (window-point other) 1) "valid"))
        (delete-window other))
      ;; Back to invalid: delete the domain's last letters.
      (delete-char -2)
      (bindery-test--wait-text "Email is invalid")
      (should (string-match-p "Valid: +false" (bindery-test--text))))))

;; M-x bindery-record, as a person would: start, fill in a form, stop.
(ert-deftest bindery-test-record ()
  "A recorded form becomes a transcript that bindery-replay replays; a changed one fails."
  ;; A fresh daemon, as a replay's: its first session is 1.
  (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil))
  (setq bindery-arguments '("--deterministic"))
  (let ((file (make-temp-file "bindery-record" nil ".jsonl"))
        (replay (expand-file-name "bindery-replay" (file-name-directory (getenv "BINDERYD")))))
    (unwind-protect
        (progn
          (bindery-test--with-forms ((form "email"))
            ;; Started with the form open: its opening is in the recording all the same.
            (bindery-record-start file)
            (with-current-buffer form
              (bindery-test--type "ada@example.com")
              (bindery-test--wait-text "Validation message: Email is valid")))
          (should (equal (bindery-record-stop) file))
          (let* ((lines (split-string (with-temp-buffer (insert-file-contents file) (buffer-string)) "\n" t))
                 (header (json-parse-string (car lines) :object-type 'plist)))
            (should (equal (plist-get header :daemon) "binderyd"))
            (should (equal (plist-get header :arguments) ["--deterministic"]))
            (should (string-prefix-p "{\"in\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"" (cadr lines))))
          (with-temp-buffer
            (should (= 0 (call-process replay nil t nil "--daemon" (getenv "BINDERYD") file)))
            (should (string-match-p "^ok " (buffer-string))))
          ;; A change the daemon would not make fails, naming the member.
          (with-temp-file file
            (insert-file-contents file)
            (goto-char (point-min))
            (while (search-forward "Email is valid" nil t) (replace-match "Email is fine")))
          (with-temp-buffer
            (should (= 1 (call-process replay nil t nil "--daemon" (getenv "BINDERYD") file)))
            (should (string-match-p (regexp-quote "params.changes.validationMessage: expected \"Email is fine\", actual \"Email is valid\"")
                                    (buffer-string)))))
      (delete-file file)
      (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil)))))

(ert-deftest bindery-test-survey ()
  "Text, numbers, a checkbox, null for an emptied field, a bad number."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "survey"))
    (with-current-buffer form
      (bindery-test--goto-field "name")
      (bindery-test--type "Zoë")
      (bindery-test--goto-field "yearsOfExperience")
      (bindery-test--type "3")
      (bindery-test--goto-field "approxSalary")
      (insert "45000")
      (bindery-test--goto-field "isCurrentEmployer")
      (widget-button-press (point))
      (let ((text (bindery-test--wait-text "Salary: +45\\.0k")))
        (should (string-match-p "Experience: +3\\.0 yrs" text))
        (should (string-match-p "Current employer\\?: +\\[X\\]" text))
        (should (string-match-p "Name: Zoë\n +Company: --" text))
        (should (string-match-p "Current Employer\\?: YES" text)))
      ;; Unticking sends false.
      (bindery-test--goto-field "isCurrentEmployer")
      (widget-button-press (point))
      (bindery-test--wait-text "Current Employer\\?: NO")
      (should (string-match-p "Current employer\\?: +\\[ \\]" (bindery-test--text)))
      ;; A bad number is refused by the daemon, shown next to its field
      ;; with what it expected; the typed text stays, nothing is written.
      (bindery-test--goto-field "yearsOfExperience")
      (bindery-test--erase-field)
      (bindery-test--type "3x")
      (let ((text (bindery-test--wait-text "! expected a number")))
        (should (string-match-p "Years of experience: \\[3x +\\]\n +! expected a number\n" text))
        (should (string-match-p "Experience: +3\\.0 yrs" text)))
      (should (string-match-p "Years of experience: expected a number" (bindery-test--messages)))
      (delete-char -1)
      (bindery-test--type ".5")
      (let ((text (bindery-test--wait-text "Experience: +3\\.5 yrs")))
        (should-not (string-match-p "expected a number" text)))
      ;; Emptying a nullable field sends null: the summary says "--".
      (bindery-test--goto-field "name")
      (bindery-test--erase-field)
      (bindery-test--wait-text "Summary: +Name: --")
      (bindery-test--settle))))

(defun bindery-test--keys (keys)
  "Type KEYS (a `kbd' string) in the selected window, as real key input."
  (execute-kbd-macro (kbd keys)))

(defun bindery-test--history-settled ()
  "Wait until this form's undo and redo requests are answered."
  (bindery-test--wait (lambda () (null bindery--history)) "the undo to be answered"))

(defun bindery-test--count (regexp text)
  "Return how many times REGEXP matches in TEXT."
  (let ((n 0) (start 0))
    (while (string-match regexp text start)
      (setq n (1+ n) start (match-end 0)))
    n))

(ert-deftest bindery-test-undo-redo ()
  "The undo keys undo in the daemon, a burst of typing at a time; redo too."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "survey"))
    (delete-other-windows)
    (switch-to-buffer form)
    (with-current-buffer form
      (let ((undo-messages (bindery-test--count "Nothing to undo" (bindery-test--messages)))
            (redo-messages (bindery-test--count "Nothing to redo" (bindery-test--messages))))
        ;; Emacs's own undo is off: the daemon's history is the one undo.
        (should (eq buffer-undo-list t))
        (bindery-test--goto-field "name")
        (dolist (keys '("C-/" "C-_" "C-x u"))
          (should (eq (key-binding (kbd keys)) 'bindery-undo)))
        (dolist (keys '("C-?" "C-M-_"))
          (should (eq (key-binding (kbd keys)) 'bindery-redo)))
        ;; Three writes of one field with no pause between them on the
        ;; daemon's (virtual) clock: one step.
        (dolist (keys '("A" "d" "a"))
          (bindery-test--keys keys)
          (bindery-test--settle))
        (bindery-test--wait-text "Summary: +Name: Ada\n")
        (should (eq buffer-undo-list t))
        (bindery-test--keys "C-/")
        (let ((text (bindery-test--wait-text "Summary: +Name: --\n")))
          (should (string-match-p "\nName: +\\[ +\\]\n" text)))
        (bindery-test--keys "C-M-_")
        (let ((text (bindery-test--wait-text "Summary: +Name: Ada\n")))
          (should (string-match-p "\nName: +\\[Ada +\\]\n" text)))
        ;; A second field is a second step.
        (bindery-test--goto-field "companyName")
        ;; g and q type in a field (outside one they refresh and quit).
        (should (eq (key-binding "g") 'self-insert-command))
        (should (eq (key-binding "q") 'self-insert-command))
        (bindery-test--keys "Engines")
        (bindery-test--wait-text "Company: Engines\n")
        (bindery-test--settle)
        (bindery-test--keys "C-/")
        (let ((text (bindery-test--wait-text "Summary: +Name: Ada\n +Company: --\n")))
          (should (string-match-p "\nCompany: +\\[ +\\]\n" text))
          (should (string-match-p "\nName: +\\[Ada +\\]\n" text)))
        (bindery-test--keys "C-x u")
        (bindery-test--wait-text "Summary: +Name: --\n")
        (bindery-test--history-settled)
        ;; The last step was undone: no message about it.
        (should (= (bindery-test--count "Nothing to undo" (bindery-test--messages))
                   undo-messages))
        ;; Nothing left: a message says so and nothing changes.
        (let ((before (bindery-test--text)))
          (bindery-test--keys "C-_")
          (bindery-test--history-settled)
          (should (= (bindery-test--count "Nothing to undo in this form" (bindery-test--messages))
                     (1+ undo-messages)))
          (should (equal (bindery-test--text) before)))
        (bindery-test--keys "C-?")
        (bindery-test--wait-text "Summary: +Name: Ada\n +Company: --\n")
        (bindery-test--keys "C-M-_")
        (bindery-test--wait-text "Summary: +Name: Ada\n +Company: Engines\n")
        (bindery-test--history-settled)
        (should (= (bindery-test--count "Nothing to redo" (bindery-test--messages))
                   redo-messages))
        (bindery-test--keys "C-M-_")
        (bindery-test--history-settled)
        (should (= (bindery-test--count "Nothing to redo in this form" (bindery-test--messages))
                   (1+ redo-messages)))
        (let ((state (plist-get (bindery-request :session/state
                                                 (list :session bindery--session))
                                :state)))
          (should (equal (plist-get state :name) "Ada"))
          (should (equal (plist-get state :companyName) "Engines")))))))

(ert-deftest bindery-test-undo-pause-and-pending ()
  "A pause starts a new step; text not sent yet is sent (as a step) before undo."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "survey"))
    (delete-other-windows)
    (switch-to-buffer form)
    (with-current-buffer form
      (bindery-test--goto-field "name")
      (bindery-test--keys "Ada")
      (bindery-test--settle)
      ;; A second on the daemon's clock: typing again is a new step.
      (bindery-advance-clock 1000)
      (bindery-test--keys "SPC L")
      (bindery-test--wait-text "Summary: +Name: Ada L\n")
      (bindery-test--settle)
      (bindery-test--keys "C-/")
      (bindery-test--wait-text "Summary: +Name: Ada\n")
      (should (string-match-p "\nName: +\\[Ada +\\]\n" (bindery-test--text)))
      ;; Typed, not sent yet (a long pause before sending): undo sends it
      ;; first, so undo takes back that, not the step before.
      (bindery-advance-clock 1000)
      (let ((bindery-send-delay 60))
        (bindery-test--goto-field "name")
        (forward-char 3)
        (bindery-test--keys "DEL")
        (should (bindery--field-timer (cl-find "name" bindery--fields
                                               :key #'bindery--field-name :test #'equal)))
        (should (string-match-p "Summary: +Name: Ada\n" (bindery-test--text)))
        (bindery-test--keys "C-/"))
      (bindery-test--history-settled)
      (let ((text (bindery-test--wait-text "Summary: +Name: Ada\n")))
        (should (string-match-p "\nName: +\\[Ada +\\]\n" text)))
      (should (equal (plist-get (plist-get (bindery-request :session/state
                                                            (list :session bindery--session))
                                           :state)
                                :name)
                     "Ada"))
      ;; And the step before is still there to undo.
      (bindery-test--keys "C-/")
      (bindery-test--wait-text "Summary: +Name: --\n"))))

(ert-deftest bindery-test-login-sync-flow ()
  "Login is disabled until both names; running… then the user (virtual clock)."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "login"))
    (with-current-buffer form
      (should (string-match-p "\\[Login\\] (disabled)" (bindery-test--text)))
      ;; Pressing a disabled command only says so.
      (bindery-test--press "Login")
      (should (string-match-p "Login is disabled" (bindery-test--messages)))
      (should-not (string-match-p "running…" (bindery-test--text)))
      (bindery-test--goto-field "firstName")
      (bindery-test--type "Ada")
      (widget-forward 1)
      (bindery-test--type "Lovelace")
      ;; Press at once: the typing is flushed before the invoke.
      (bindery-test--press "Login")
      (let ((text (bindery-test--wait-text "Logging in: +true")))
        (should (string-match-p "\\[Login\\] running…" text))
        (should (string-match-p "First name: +\\[Ada +\\]" text))
        (should (string-match-p "Last name: +\\[Lovelace +\\]" text)))
      (bindery-advance-clock 1500)
      (let ((text (bindery-test--wait-text "=> firstName: Ada")))
        (should (string-match-p
                 "Logged-in user: User(firstName: \"Ada\", lastName: \"Lovelace\", authToken: \"123adasdsadasdasdasdd\")"
                 text))
        (should (string-match-p "\\[Login\\]\n    => firstName: Ada, lastName: Lovelace" text))
        (should-not (string-match-p "running…" text))
        (should (string-match-p "Logging in: +false" text))))))

(ert-deftest bindery-test-login-failure ()
  "A command that throws shows its error under the button."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "login"))
    (with-current-buffer form
      (bindery-test--goto-field "firstName")
      (bindery-test--type "Mallory")
      (widget-forward 1)
      (bindery-test--type "X")
      (bindery-test--press "Login")
      (bindery-test--wait-text "running…")
      (bindery-advance-clock 1500)
      (let ((text (bindery-test--wait-text "! Command \"login\" of login failed")))
        (should (string-match-p "Error: +The user API rejected Mallory X" text))
        (should-not (string-match-p "running…" text))))))

(ert-deftest bindery-test-login-cancel ()
  "C-c C-k cancels a running login with $/cancelRequest."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "login"))
    (with-current-buffer form
      (bindery-test--goto-field "firstName")
      (bindery-test--type "Ada")
      (widget-forward 1)
      (bindery-test--type "Lovelace")
      (bindery-test--press "Login")
      (bindery-test--wait-text "Logging in: +true")
      ;; C-c C-k works from a field as well as from the button.
      (bindery-test--goto-field "lastName")
      (should (eq (key-binding (kbd "C-c C-k")) 'bindery-cancel))
      (bindery-test--key "C-c C-k")
      (let ((text (bindery-test--wait-text "! Request cancelled")))
        (should (string-match-p "Logging in: +false" text))
        (should (string-match-p "Logged-in user: *\n" text))
        (should-not (string-match-p "running…" text)))
      ;; Nothing runs now: cancelling again only says so.
      (bindery-test--key "C-c C-k")
      (should (string-match-p "No command of this form is running"
                              (bindery-test--messages))))))

(ert-deftest bindery-test-package ()
  "A sync command adds an item: the array shows one line per element."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "package"))
    (with-current-buffer form
      (should (string-match-p "Contents: +(empty)" (bindery-test--text)))
      (bindery-test--press "Add item")
      (bindery-test--wait-text "Contents: +title: Light bulb, weight: [0-9]+\n")
      (bindery-test--press "Add item")
      (let ((text (bindery-test--wait-text
                   "Contents: +title: Light bulb, weight: [0-9]+\n +title: Light bulb, weight: [0-9]+\n")))
        (should (string-match-p "Summary: +Recipient: Ada Lovelace\n +Postal address:" text))
        (should (string-match-p "Contents: Light bulb [0-9]+, Light bulb [0-9]+" text))
        (should (string-match-p "\\[Add item\\]\n    => done" text)))
      (bindery-test--goto-field "recipientFirstName")
      (bindery-test--erase-field)
      (bindery-test--type "Grace")
      (bindery-test--wait-text "Recipient: Grace Lovelace"))))

(ert-deftest bindery-test-element ()
  "element needs args: given as JSON, or asked for when the open fails."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "element" nil "{\"symbol\":\"He\"}"))
    (let ((text (bindery-test--text form)))
      (should (string-match-p "Name: +Helium" text))
      (should (string-match-p "Atomic number: +2\n" text))
      (should (string-match-p "Weight: +Weight: 4\\.0026" text))))
  (should-error (bindery-open "element") :type 'user-error)
  ;; Interactively, a refused open asks for the arguments.
  (let (prompt form)
    (unwind-protect
        (cl-letf (((symbol-function 'read-string)
                   (lambda (p &rest _) (setq prompt p) "{\"symbol\":\"li\"}")))
          (setq form (bindery-open "element" nil nil t))
          (should (string-match-p "Could not open element" prompt))
          (should (string-match-p "Name: +Lithium" (bindery-test--text form))))
      (when (buffer-live-p form) (kill-buffer form)))))

(ert-deftest bindery-test-movies ()
  "A movie saved in addMovie appears in movieList, side by side."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((list "movieList") (add "addMovie"))
    (delete-other-windows)
    (switch-to-buffer list)
    (set-window-buffer (split-window-right) add)
    (with-current-buffer add
      (should (string-match-p "\\[Save\\] (disabled)" (bindery-test--text)))
      (bindery-test--goto-field "title")
      (bindery-test--type "Alien")
      ;; Choose a rating the way the menu does, answering its question.
      (bindery-test--goto-field "rating")
      (cl-letf (((symbol-function 'widget-choose)
                 (lambda (_title items &rest _) (cdr (assoc "good" items)))))
        (widget-button-press (point)))
      (bindery-test--wait-text "Rating: +\\[good\\]")
      (bindery-test--wait-text "\\[Save\\]\n")
      (bindery-test--press "Save")
      (bindery-test--wait-text "=> id: [0-9]+, fullTitle: Alien, givenRating: good"))
    (with-current-buffer list
      (bindery-test--wait-text "id: [0-9]+, fullTitle: Alien, givenRating: good\n")
      ;; The checkbox is a writable boolean: toggle it and read it back.
      (bindery-test--goto-field "isPresentingAddMovie")
      (widget-button-press (point))
      (bindery-test--settle)
      (bindery-test--key "g")
      (bindery-test--wait-text "Adding a movie: +\\[X\\]"))
    (with-current-buffer add
      (bindery-test--goto-field "title")
      (bindery-test--erase-field)
      (bindery-test--type "Heat")
      (bindery-test--press "Save")
      (bindery-test--wait-text "fullTitle: Heat"))
    (with-current-buffer list
      (bindery-test--wait-text
       "fullTitle: Alien, givenRating: good\n +id: [0-9]+, fullTitle: Heat, givenRating: good\n"))
    (delete-other-windows)))

(defun bindery-test--save-movie (add title)
  "Save a movie called TITLE with the addMovie form ADD."
  (with-current-buffer add
    (bindery-test--goto-field "title")
    (bindery-test--erase-field)
    (bindery-test--type title)
    (bindery-test--press "Save")
    (bindery-test--wait-text (format "=> id: [0-9]+, fullTitle: %s," (regexp-quote title)))))

(defun bindery-test--movie-list (session &rest movies)
  "The text of the movieList form of SESSION showing MOVIES, (ID TITLE) each."
  (concat (format "movieList  session %d\n\n" session)
          "Movies:         "
          (if movies
              (mapconcat (lambda (m) (format "id: %s, fullTitle: %s, givenRating: notSeen"
                                             (car m) (cadr m)))
                         movies "\n                ")
            "(empty)")
          "\nAdding a movie: [ ]\n\nTAB next, RET press, C-c C-k cancel, C-h m help\n"))

(ert-deftest bindery-test-movies-splices ()
  "A saved movie inserts only its line in movieList; points stay; a misfit resyncs."
  ;; A daemon of its own: the movie store is the daemon's, shared by all.
  (when bindery--current (bindery--stop bindery--current))
  (bindery-test--daemon "--deterministic")
  (should (equal (bindery--conn-capabilities (bindery-connection)) '(:splices t :display t)))
  (bindery-test--with-forms ((list "movieList") (add "addMovie"))
    (delete-other-windows)
    (switch-to-buffer list)
    (let ((other (split-window-below))
          (session (buffer-local-value 'bindery--session list))
          (indent "\n                ")
          changes splices)
      (cl-flet ((record (params)
                  (when (plist-get params :splices)
                    (push (plist-get params :splices) splices)))
                (expect (&rest movies)
                  (let ((text (apply #'bindery-test--movie-list session movies)))
                    (bindery-test--wait (lambda () (equal (bindery-test--text list) text))
                                        (concat "movieList to read:\n" text)))))
        (advice-add 'bindery--did-change :before #'record)
        (unwind-protect
            (with-current-buffer list
              (add-hook 'after-change-functions
                        (lambda (beg end old-length)
                          (push (list beg end old-length
                                      (buffer-substring-no-properties beg end))
                                changes))
                        nil t)
              ;; The first movie comes whole (the list kept none of its
              ;; elements): the member is rewritten.
              (bindery-test--save-movie add "Alien")
              (expect '(1 "Alien"))
              (should (null splices))
              ;; Points: at the end of Alien's line here, on "Adding a
              ;; movie" in the other window.
              (goto-char (point-min))
              (search-forward "Alien, givenRating: notSeen")
              (set-window-point other (save-excursion (search-forward "Adding a movie")
                                                      (match-beginning 0)))
              (setq changes nil)
              (bindery-test--save-movie add "Brazil")
              (expect '(1 "Alien") '(2 "Brazil"))
              (should (equal (car splices)
                             '(:movies (:ops [(:at 1 :delete 0
                                                   :insert [(:id "2" :fullTitle "Brazil"
                                                                 :givenRating "notSeen")])]
                                        :length 2))))
              ;; One change: Brazil's line inserted after Alien's.
              (let ((at (save-excursion (goto-char (point-min))
                                        (search-forward "Alien, givenRating: notSeen")))
                    (line (concat indent "id: 2, fullTitle: Brazil, givenRating: notSeen")))
                (should (equal changes `((,at ,(+ at (length line)) 0 ,line)))))
              (should (equal (bindery-test--around (point) -1)
                             "Movies:         id: 1, fullTitle: Alien, givenRating: notSeen"))
              (should (equal (bindery-test--around (point) 1) ""))
              (should (equal (bindery-test--around (window-point other) 1) "Adding a movie: [ ]"))
              (setq changes nil)
              (bindery-test--save-movie add "Cube")
              (expect '(1 "Alien") '(2 "Brazil") '(3 "Cube"))
              (should (equal (length changes) 1))
              (should (equal (nth 2 (car changes)) 0))
              (should (equal (nth 3 (car changes))
                             (concat indent "id: 3, fullTitle: Cube, givenRating: notSeen")))
              (should (equal (bindery-test--around (point) 1) ""))
              (should (equal (bindery-test--around (window-point other) 1) "Adding a movie: [ ]"))
              ;; A delete and an insert (the seed types only ever append, so
              ;; this didChange is made here): two changes, points follow.
              (goto-char (point-min))
              (search-forward "fullTitle: Cube")
              (setq changes nil)
              (bindery--did-change
               (list :session session :revision (1+ (bindery-test--revision)) :changes nil
                     :splices (list :movies
                                    (list :ops (vector (list :at 0 :delete 1 :insert [])
                                                       (list :at 1 :delete 0
                                                             :insert (vector (list :id "9" :fullTitle "Dune"
                                                                                   :givenRating "notSeen"))))
                                          :length 3))))
              (should (equal (bindery-test--text)
                             (bindery-test--movie-list session '(2 "Brazil") '(9 "Dune") '(3 "Cube"))))
              (should (equal (mapcar (lambda (c) (nth 2 c)) (reverse changes))
                             (list (length (concat "id: 1, fullTitle: Alien, givenRating: notSeen" indent))
                                   0)))
              (should (equal (bindery-test--around (point) -1) "                id: 3, fullTitle: Cube"))
              (should (equal (bindery-test--around (window-point other) 1) "Adding a movie: [ ]"))
              ;; Back to the daemon's list.
              (bindery-refresh)
              (expect '(1 "Alien") '(2 "Brazil") '(3 "Cube"))
              ;; This form's copy of the list is off by one: the next splice's
              ;; length does not match it, and the whole state is fetched.
              (puthash "movies" (vconcat (gethash "movies" bindery--state)
                                         [(:id "x" :fullTitle "Bogus" :givenRating "poor")])
                       bindery--state)
              (bindery-test--save-movie add "Dune")
              (expect '(1 "Alien") '(2 "Brazil") '(3 "Cube") '(4 "Dune"))
              (should (string-match-p "session [0-9]+: the splices of movies leave 5 elements, the daemon says 4; resynchronising"
                                      (bindery-test--text (bindery--log-buffer))))
              (should (equal (length (gethash "movies" bindery--state)) 4)))
          (advice-remove 'bindery--did-change #'record)
          (delete-other-windows))))))

(ert-deftest bindery-test-bottom-bar-keyed ()
  "bottomBar changes with no request; its key gives the same session back."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((bar "bottomBar" "bar"))
    (with-current-buffer bar
      (should (string-match-p "key \"bar\"" (bindery-test--text)))
      (should (string-match-p "Text: *\n" (bindery-test--text)))
      (bindery-advance-clock 2000)
      (bindery-test--wait-text "Text: Random number: [0-9]+\n"))
    (should (eq (bindery-open "bottomBar" "bar") bar))))

(ert-deftest bindery-test-real-clock ()
  "Without --deterministic: login runs 1.5 s, bottomBar ticks by itself."
  (bindery-test--daemon)
  (bindery-test--with-forms ((login "login") (bar "bottomBar"))
    (with-current-buffer login
      (bindery-test--type "Ada")
      (widget-forward 1)
      (bindery-test--type "Lovelace")
      (bindery-test--press "Login")
      (bindery-test--wait-text "running…")
      (bindery-test--wait-text "Logged-in user: User(firstName: \"Ada\""))
    (bindery-test--wait-text "Text: Random number: [0-9]+\n" bar)))

(ert-deftest bindery-test-refusals ()
  "A read-only output is refused next to the field; C-c C-s sends text."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "email"))
    (with-current-buffer form
      (bindery-set-field "isValid" "true")
      (bindery-test--wait-text "Valid: +false\n +! Field \"isValid\" of email is read-only\n")
      (should (string-match-p "Valid: Field \"isValid\" of email is read-only"
                              (bindery-test--messages)))
      ;; C-c C-s sends text for the daemon to read: a string takes any.
      (cl-letf (((symbol-function 'completing-read) (lambda (&rest _) "email"))
                ((symbol-function 'read-string) (lambda (&rest _) "42")))
        (bindery-test--key "C-c C-s"))
      (bindery-test--wait (lambda () (equal (bindery-test--state "email") "42")) "the text")
      ;; Typing a good value.
      (bindery-test--goto-field "email")
      (bindery-test--erase-field)
      (bindery-test--type "a@b.co")
      (bindery-test--wait-text "Email is valid"))))

(ert-deftest bindery-test-own-echo-ignored ()
  "A stale value of the field being typed in never overwrites it."
  (bindery-test--daemon "--deterministic")
  (bindery-test--with-forms ((form "email"))
    (with-current-buffer form
      (let ((bindery-send-delay 5))        ; keep the write pending
        (bindery-test--type "ada@exa")
        (let ((point (point)))
          (bindery--did-change (list :session bindery--session
                                     :revision (1+ (bindery-test--revision))
                                     :changes '(:email "stale")))
          (should (= (point) point))
          (should (string-match-p "\\[ada@exa +\\]" (bindery-test--text)))
          (bindery-test--type "mple.com")
          (bindery--flush-fields)))
      (bindery-test--wait-text "Email is valid")
      (should (string-match-p "\\[ada@example\\.com +\\]" (bindery-test--text))))))

(ert-deftest bindery-test-kill-buffer-closes-session ()
  "Killing a form closes its session."
  (bindery-test--daemon "--deterministic")
  (let* ((form (bindery-open "email"))
         (session (buffer-local-value 'bindery--session form)))
    (should (plist-get (bindery-request :session/state (list :session session))
                       :state))
    (kill-buffer form)
    (bindery-test--wait
     (lambda ()
       (condition-case err
           (progn (bindery-request :session/state (list :session session)) nil)
         (jsonrpc-error (eql (bindery--error-code err) -32011))))
     "the session to be closed")))

(ert-deftest bindery-test-open-interactively ()
  "M-x bindery-open completes the type; C-u asks for a key."
  (bindery-test--daemon "--deterministic")
  (let (form types)
    (unwind-protect
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt collection &rest _) (setq types collection) "survey"))
                  ((symbol-function 'read-string) (lambda (&rest _) "mine")))
          (let ((current-prefix-arg '(4)))
            (call-interactively #'bindery-open))
          (setq form (current-buffer))
          (should (equal types '("email" "survey" "login" "package" "element"
                                 "movieList" "addMovie" "bottomBar")))
          (should (string-match-p "\\`\\*bindery: survey [0-9]+\\*\\'" (buffer-name)))
          (should (string-match-p "key \"mine\"" (bindery-test--text))))
      (when (buffer-live-p form) (kill-buffer form)))))

(defun bindery-test--save (file text)
  "Save TEXT as FILE the way an editor does: a temporary renamed over it."
  (let ((temporary (concat file ".tmp~")))
    (with-temp-file temporary (insert text))
    (rename-file temporary file t)))

(ert-deftest bindery-test-zy-dev-loop ()
  "Through bindery-dev: a saved edit adds an output and keeps the typed value;
a syntax error fills the compilation buffer and a line of the form; fixed, both go."
  (unless (and (getenv "BINDERY_DEV") (getenv "BINDERY_DEV_PACKAGE"))
    (ert-fail "BINDERY_DEV and BINDERY_DEV_PACKAGE are unset: run this suite through test/run"))
  (let* ((package (getenv "BINDERY_DEV_PACKAGE"))
         (model (expand-file-name "Sources/greeter/GreetingViewModel.swift" package))
         (original (with-temp-buffer (insert-file-contents model) (buffer-string)))
         (added (replace-regexp-in-string
                 "\\(Output(\"greeting\", \\\\\\.greeting)\\)"
                 "\\1\n            Output(\"shout\", \\\\.shout)"
                 (replace-regexp-in-string
                  "\\(    var greeting.*\n\\)"
                  "\\1    var shout: String { greeting.uppercased() }\n" original)))
         (bindery-command (list (getenv "BINDERY_DEV") "--package-path" package "--product" "greeter"))
         (bindery-arguments nil)
         (bindery-test-timeout 120))
    (should (string-match-p "Output(\"shout\"" added))
    (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil))
    (unwind-protect
        (bindery-test--with-forms ((form "greeting"))
          (with-current-buffer form
            (bindery-test--wait-text "Greeting: +Hello!")
            (bindery-test--goto-field "name")
            (bindery-test--type "Ada")
            (bindery-test--wait-text "Greeting: +Hello, Ada!")
            (let ((column (current-column)))
              (bindery-test--save model added)
              (let ((text (bindery-test--wait-text "Shout: +HELLO, ADA!")))
                (should (string-match-p "Name: +\\[Ada +\\]" text)))
              ;; Point is still in the Name field, where it was.
              (should (equal (bindery--field-name (widget-get (widget-field-at (point)) :bindery-field))
                             "name"))
              (should (= (current-column) column)))
            ;; A syntax error.
            (let* ((lines (split-string added "\n"))
                   (row (1+ (cl-position-if (lambda (l) (string-match-p "var shout" l)) lines))))
              (setf (nth (1- row) lines) "    var shout: String { greeting.uppercased( }")
              (bindery-test--save model (mapconcat #'identity lines "\n"))
              (bindery-test--wait-text (format "Build failed: GreetingViewModel.swift:%d: " row))
              (with-current-buffer bindery-dev-build-buffer
                (should (derived-mode-p 'compilation-mode))
                (should (string-match-p (format "^%s:%d:[0-9]+: error: " (regexp-quote model) row)
                                        (bindery-test--text))))
              ;; `next-error' goes to the line of the error in the source.
              (save-window-excursion (next-error 1 t))
              (let ((source (find-buffer-visiting model)))
                (should source)
                (should (= (with-current-buffer source (line-number-at-pos)) row))
                (kill-buffer source)))
            ;; Fixed: the line and the errors go; the form is as before.
            (bindery-test--save model original)
            (bindery-test--wait (lambda () (not (string-match-p "Shout\\|Build failed" (bindery-test--text))))
                                "the form without the output and the failure")
            (should (string-match-p "Name: +\\[Ada +\\]" (bindery-test--text)))
            (with-current-buffer bindery-dev-build-buffer
              (should-not (string-match-p "error:" (bindery-test--text))))
            ;; A daemon that died while serving is shown the same way, and cleared by a reload.
            (bindery-dev--notification bindery--conn 'daemon/exited
                                       (list :code 134 :message "the daemon exited with code 134: Fatal error: boom"))
            (should (string-match-p "The daemon exited; save a source to restart it: the daemon exited with code 134: Fatal error: boom"
                                    (bindery-test--text)))
            (with-current-buffer bindery-dev-build-buffer
              (should (string-match-p "^error: the daemon exited with code 134" (bindery-test--text))))
            (bindery-dev--notification bindery--conn 'daemon/reloaded
                                       (list :buildMs 1 :restartMs 1 :migrateMs 0 :types []))
            (should-not (string-match-p "daemon exited" (bindery-test--text)))))
      (bindery-test--save model original)
      (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil)))))
;;; Through bindery-dev: a form with children

(ert-deftest bindery-test-zz-dev-loop-children ()
  "Through bindery-dev, a form with children (the dev-loop package's tabbedApp): a saved edit
keeps the name typed in a tab, redraws the row the new model makes, drops the row a command
added, and the form goes on working."
  (unless (and (getenv "BINDERY_DEV") (getenv "BINDERY_DEV_PACKAGE"))
    (ert-fail "BINDERY_DEV and BINDERY_DEV_PACKAGE are unset: run this suite through test/run"))
  (let* ((package (getenv "BINDERY_DEV_PACKAGE"))
         (tabbed (expand-file-name "Sources/greeter/TabbedAppViewModel.swift" package))
         (original (with-temp-buffer (insert-file-contents tabbed) (buffer-string)))
         (edited (replace-regexp-in-string (regexp-quote "\\(title): \\(count)") "\\\\(title) = \\\\(count)" original t))
         (bindery-command (list (getenv "BINDERY_DEV") "--package-path" package "--product" "greeter"))
         (bindery-arguments nil)
         (bindery-test-timeout 120))
    (should-not (equal edited original))
    (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil))
    (unwind-protect
        (bindery-test--with-forms ((form "tabbedApp"))
          (with-current-buffer form
            (bindery-test--wait-text "Summary: Cups: 0")
            (bindery-test--goto-field "name")
            (bindery-test--type "Ada")
            (bindery-test--wait-text "Name: +\\[Ada *\\]\n  Can save: true")
            (bindery-test--press "Add")
            (bindery-test--wait-text "Summary: Counter 2: 0")
            (bindery-test--press-row "Increment" "Summary: Cups: 0")
            (bindery-test--wait-text "Summary: Cups: 1")
            (bindery-test--save tabbed edited)
            (bindery-test--wait-text "Summary: Cups = 0")
            (bindery-test--wait (lambda () (not (string-match-p "Counter 2" (bindery-test--text))))
                                "the added row gone")
            (should (string-match-p "Name: +\\[Ada *\\]\n  Can save: true" (bindery-test--text)))
            (should-not (string-match-p "failed\\|exited" (bindery-test--text)))
            (bindery-test--press "Add")
            (bindery-test--wait-text "Summary: Counter 2 = 0")))
      (bindery-test--save tabbed original)
      (when bindery--current (bindery--stop bindery--current) (setq bindery--current nil)))))

;;; Value types (issue 23), against appd

(defvar bindery-test--appd (getenv "APPD")
  "The daemon of Examples/AppViewModels (test/run sets $APPD).")

(defmacro bindery-test--with-appd (arguments &rest body)
  "Run BODY with a daemon of its own: appd with ARGUMENTS."
  (declare (indent 1) (debug t))
  `(let ((bindery--current nil)
         (bindery-command (list bindery-test--appd))
         (bindery-arguments ,arguments))
     (unwind-protect (progn ,@body)
       (when bindery--current (bindery--stop bindery--current)))))

(defun bindery-test--state (name)
  "Return the member NAME of this form's session, asked of the daemon."
  (plist-get (plist-get (jsonrpc-request bindery--conn :session/state
                                         (list :session bindery--session))
                        :state)
             (intern (concat ":" name))))

(defun bindery-test--retype (name text)
  "Replace the text of the field NAME with TEXT, typed, and send it."
  (bindery-test--goto-field name)
  (bindery-test--erase-field)
  (bindery-test--type text)
  (bindery-test--settle))

(defun bindery-test--press-row (label text)
  "Press the row button LABEL on the line that contains TEXT."
  (goto-char (point-min))
  (search-forward text)
  (beginning-of-line)
  (search-forward (format "[%s]" label) (line-end-position))
  (backward-char 2)
  (bindery-test--key "RET"))

(defun bindery-test--shown (field)
  "Return the one line FIELD shows: its widget's text, or its output's."
  (if (bindery--field-widget field)
      (let ((value (widget-value (bindery--field-widget field))))
        (if (stringp value) value (format "%s" value)))
    (let ((slot (bindery--field-slot field)))
      (buffer-substring-no-properties (car slot) (cdr slot)))))

(ert-deftest bindery-test-value-catalogue-shared ()
  "Each member shows the text every face shows (clients/shared/value-catalogue.json)."
  (let ((expected (with-temp-buffer
                    (insert-file-contents (getenv "BINDERY_CATALOGUE_TEXT"))
                    (json-parse-buffer :object-type 'alist))))
    (bindery-test--with-appd '("--deterministic")
      (bindery-test--with-forms ((form "valueCatalogue"))
        (with-current-buffer form
          (dolist (pair expected)
            (let ((field (cl-find (symbol-name (car pair)) bindery--fields
                                  :key #'bindery--field-name :test #'equal)))
              (should (equal (cons (car pair) (bindery-test--shown field)) pair)))))))))

(ert-deftest bindery-test-value-catalogue ()
  "Every kind of value in the daemon's text; edits sent as text, refusals shown."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "valueCatalogue"))
      (with-current-buffer form
        (should (equal (bindery-test--text)
                       "valueCatalogue  session 1

Date:       [2025-11-25T10:00:00.250Z      ]
Id:         [0f8fad5b-d9cb-469f-a165-70867728950e]
Link:       [https://example.com/a?b=c     ]
Price:      [0.3                           ]
Bytes:      [AAEC+g==                      ]
Selection:  [[1,2,5]                       ]
Tags:       [[\"a\",\"b\"]                     ]
Scores:     [[\"a\": 1, \"b\": 2]              ]
Priority:   [normal]
Shape:      [circle(radius: 1.5)           ]
Address:    [Address(street: \"1 Main St\", city: \"Springfield\")]
Labels:     [[{\"name\":\"home\",\"colour\":\"green\"}]]
Context:    [[\"1\": [], \"2\": [\"x\"]]         ]
Big count:  [9000000000                    ]
Ratio:      [0.5                           ]
Window:     ClosedRange<Int>(lowerBound: 1, upperBound: 1000000)
Timeout:    [1.5                           ]
Last error: Something went wrong
Pair:       (width: 3, height: 4)

[Reset]

TAB next, RET press, C-c C-k cancel, C-h m help
"))
        (let (sent)
          (advice-add 'bindery--async :before
                      (lambda (_conn method params &rest _)
                        (when (eq method :setField) (push params sent)))
                      '((name . bindery-test)))
          (unwind-protect
              (progn
                ;; A wrong date is refused by the daemon, with what it expected
                ;; under the field; the typed text stays and nothing is written.
                (bindery-test--retype "date" "2025-13-01T10:00:00Z")
                (bindery-test--wait-text
                 "Date: +\\[2025-13-01T10:00:00Z +\\]\n +! expected a date and time, ISO 8601 (2025-11-25T10:00:00Z)\n")
                (should (equal (bindery-test--state "date") "2025-11-25T10:00:00.250Z"))
                (should (equal (car sent) '(:session 1 :field "date" :text "2025-13-01T10:00:00Z"))))
            (advice-remove 'bindery--async 'bindery-test)))
        ;; A right one: the daemon keeps it in UTC and says so.
        (bindery-test--retype "date" "2026-01-01T09:30:00+01:00")
        (bindery-test--wait-text "Date: +\\[2026-01-01T08:30:00\\.000Z +\\]")
        (should-not (string-match-p "! " (bindery-test--text)))
        (should (equal (bindery-test--state "date") "2026-01-01T08:30:00.000Z"))
        (bindery-test--retype "price" "abc")
        (bindery-test--wait-text "! expected a decimal number (0.30)")
        (bindery-test--retype "price" "0.10")
        (should (equal (bindery-test--state "price") "0.1"))
        (bindery-test--retype "selection" "[1, 2, 5, 9]")
        (should (equal (bindery-test--state "selection") [1 2 5 9]))
        (bindery-test--retype "scores" "[\"a\": 1, \"b\": 2, \"c\": 3]")
        (should (equal (bindery-test--state "scores") '(:a 1 :b 2 :c 3)))
        (bindery-test--retype "shape" "hexagon")
        (bindery-test--wait-text "! expected one of circle(..), rectangle(..), point")
        (bindery-test--retype "shape" "rectangle(2, 3.5)")
        (should-not (string-match-p "! " (bindery-test--text)))
        (should (equal (bindery-test--state "shape") '(:case "rectangle" :_0 2.0 :_1 3.5)))
        (bindery-test--press "Reset")
        (bindery-test--wait-text "Shape: +\\[point +\\]")
        (should (string-match-p "Price: +\\[0 +\\]" (bindery-test--text)))))))

(ert-deftest bindery-test-todo-list ()
  "Two to-dos added; one toggled with the button on its row."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "todoList"))
      (with-current-buffer form
        (dolist (title '("Buy milk" "Call Ada"))
          (bindery-test--retype "newTitle" title)
          (bindery-test--press "Add")
          (bindery-test--wait-text (concat "title: " title)))
        (let ((uuid "[0-9a-f]\\{8\\}-[-0-9a-f]\\{27\\}"))
          (should (string-match-p
                   (concat "\nItems: +\\[Toggle\\] \\[Delete\\] id: " uuid ", title: Buy milk, isDone: no\n"
                           " +\\[Toggle\\] \\[Delete\\] id: " uuid ", title: Call Ada, isDone: no\n"
                           "Visible items: +\\[Toggle\\] \\[Delete\\] id: " uuid ", title: Buy milk, isDone: no\n"
                           " +\\[Toggle\\] \\[Delete\\] id: " uuid ", title: Call Ada, isDone: no\n"
                           "Remaining count: 2\n")
                   (bindery-test--text))))
        (bindery-test--press-row "Toggle" "title: Call Ada")
        (bindery-test--wait-text "Remaining count: 1\n")
        ;; The row came back as a splice; point stayed on it, on its button.
        (should (string-match-p "\\`\\[Toggle\\] \\[Delete\\] id: .*title: Call Ada, isDone: yes\\'"
                                (buffer-substring-no-properties
                                 (- (point) 6) (line-end-position))))
        (should (string-match-p "Items: .*title: Buy milk, isDone: no\n.*title: Call Ada, isDone: yes\n"
                                (bindery-test--text)))
        (should (eq (plist-get (aref (bindery-test--state "items") 1) :isDone) t))
        (bindery-test--press-row "Delete" "title: Buy milk")
        (bindery-test--wait-text "Items: +\\[Toggle\\] \\[Delete\\] id: [-0-9a-f]+, title: Call Ada, isDone: yes\nVisible")
        ;; A command's argument typed goes as text; the daemon's refusal shows under it.
        (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "nothing")))
          (bindery-test--press "Toggle"))
        (bindery-test--wait-text
         "\\[Toggle\\]\n +! expected TodoItem(id: \\.\\., title: \\.\\., isDone: \\.\\., due\\?: \\.\\.)\n")
        ;; A wrong due date is refused by the daemon, and nothing is written.
        (bindery-test--retype "newDue" "friday")
        (bindery-test--wait-text "! expected a date and time, ISO 8601 (2025-11-25T10:00:00Z), or nothing")
        (should (null (bindery-test--state "newDue")))))))

(ert-deftest bindery-test-settings-enums ()
  "Enum fields are menus: an enum with Int raw values and Foundation's UnitStyle."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "settings"))
      (with-current-buffer form
        (dolist (pick '(("distanceUnit" "miles" "Goal summary: +5 mi a day")
                        ("unitStyle" "long" "Goal summary: +5 miles a day")))
          (bindery-test--goto-field (car pick))
          (let (offered)
            (cl-letf (((symbol-function 'widget-choose)
                       (lambda (_title items &rest _)
                         (setq offered (mapcar #'car items))
                         (cdr (assoc (cadr pick) items)))))
              (widget-button-press (point)))
            (should (equal offered (if (equal (car pick) "unitStyle") '("short" "medium" "long")
                                     '("kilometers" "miles")))))
          (bindery-test--wait-text (nth 2 pick)))
        (should (equal (bindery-test--state "unitStyle") "long"))
        (should (string-match-p "Reminder time: +\\[2026-01-01T08:00:00\\.000Z +\\]" (bindery-test--text)))))))

(ert-deftest bindery-test-search-union ()
  "The union state: idle, loading, loaded with its films, failed (the real clock)."
  (bindery-test--with-appd nil
    (bindery-test--with-forms ((form "search"))
      (with-current-buffer form
        (should (string-match-p "State: +idle\n" (bindery-test--text)))
        (let (seen)
          (add-hook 'after-change-functions
                    (lambda (&rest _)
                      (when (string-match "State: +\\(idle\\|loading\\|loaded\\|failed\\)[\n(]"
                                        (bindery-test--text))
                        (cl-pushnew (match-string 1 (bindery-test--text)) seen :test #'equal)))
                    nil t)
          (bindery-test--goto-field "query")
          (bindery-test--type "Mo")
          (bindery-test--wait-text
           "State: +loaded(\\[Film(id: 2, title: \"Modern Times\", year: 1936)\\])\nResult count: 1\n")
          (should (equal (nreverse seen) '("idle" "loading" "loaded"))))
        (bindery-test--retype "query" "error")
        (bindery-test--wait-text "State: +failed(\"The film service is offline\")\n")
        (bindery-test--retype "query" "")
        (bindery-test--wait-text "State: +idle\n")))))

(ert-deftest bindery-test-order-decimals ()
  "Decimal totals exactly (0.1 + 0.2 is 0.3); lines added and removed by row."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "order"))
      (with-current-buffer form
        (bindery-test--press-row "Add" "sku: cup")
        (bindery-test--wait-text "Total: +0\\.1\n")
        (bindery-test--press-row "Add" "sku: pot")
        (bindery-test--wait-text "Total: +0\\.3\n")
        (bindery-test--press-row "Add" "sku: pot")
        (bindery-test--wait-text "Subtotal: +0\\.5\n")
        (should (string-match-p
                 "\\[Remove\\] product: {sku: pot, name: Teapot, price: 0\\.2}, quantity: 2\n"
                 (bindery-test--text)))
        (bindery-test--retype "couponCode" "SAVE10")
        (bindery-test--wait-text "Discount: +0\\.05\nTotal: +0\\.45\n")
        (bindery-test--press-row "Remove" "product: {sku: cup")
        (bindery-test--wait-text "Total: +0\\.36\n")
        (bindery-test--press "Place order")
        (bindery-test--wait-text "Lines: +(empty)")
        (should (string-match-p "Placed order ID: +[0-9a-f]\\{8\\}-" (bindery-test--text)))))))

(ert-deftest bindery-test-zz-dying-daemon ()
  "When the daemon dies the forms say so; the next open starts a new one."
  (let* ((conn (bindery-test--daemon "--deterministic"))
         (process (jsonrpc--process conn))
         (form (bindery-open "login")))
    (unwind-protect
        (with-current-buffer form
          (bindery-test--type "Ada")
          (widget-forward 1)
          (bindery-test--type "Lovelace")
          (bindery-test--press "Login")
          (bindery-test--wait-text "running…")
          (signal-process process 'KILL)
          (let ((text (bindery-test--wait-text "binderyd died")))
            (should (string-match-p "this form is no longer live" text))
            (should (string-match-p "! Server died" text))
            (should-not (string-match-p "running…" text)))
          (should (string-match-p "(dead)\\*\\'" (buffer-name)))
          (should (string-match-p "binderyd died" (with-current-buffer "*bindery-log*"
                                                     (buffer-string))))
          ;; Typing in a dead form is harmless.
          (bindery-test--goto-field "firstName")
          (bindery-test--type "!")
          (bindery--flush-fields)
          (should (null bindery--current))
          (let ((again (bindery-open "email")))
            (unwind-protect
                (with-current-buffer again
                  (should-not (eq bindery--conn conn))
                  (should (process-live-p (jsonrpc--process bindery--conn)))
                  (bindery-test--type "ada@example.com")
                  (bindery-test--wait-text "Email is valid"))
              (kill-buffer again))))
      (kill-buffer form))))

;;; Child view models (issue 24), against appd

(defun bindery-test--row-widget (id name)
  "Return the widget of the field NAME of the row whose line shows Id: ID."
  (save-excursion
    (goto-char (point-min))
    (re-search-forward (format "^ *- .*Id: %d " id))
    (forward-line 1)
    (should (looking-at (format " *%s: *\\[" (capitalize name))))
    (goto-char (1- (match-end 0)))
    (forward-char 1)
    (widget-at (point))))

(defun bindery-test--row-ids ()
  "Return the ids of the counter rows, in the order the form shows them."
  (let (ids)
    (save-excursion
      (goto-char (point-min))
      (while (re-search-forward "^    - \\[Increment\\] \\[Reset\\] Id: \\([0-9]+\\)" nil t)
        (push (string-to-number (match-string 1)) ids)))
    (nreverse ids)))

(defmacro bindery-test--answering (answer &rest body)
  "Run BODY with every `read-string' answered ANSWER (a command's argument)."
  (declare (indent 1) (debug t))
  `(cl-letf (((symbol-function 'read-string) (lambda (&rest _) ,answer)))
     ,@body))

(ert-deftest bindery-test-children-tabbed-app ()
  "tabbedApp: tabs, rows and the detail drawn nested, each row its own session."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "tabbedApp"))
      (with-current-buffer form
        (should (equal (bindery-test--text)
                       "tabbedApp  session 1

Selected tab: [counters]
Clock tab:
  Ticks:      0
  Is running: false
  [Start]
  [Stop]
Profile tab:
  Name:     [                              ]
  Can save: false
Counters tab:
  New title: [                              ]
  Rows: (none)
  Total:     0
  [Add]
  [Remove]
  [Move to top]
Detail: (none)

[Show detail]
[Hide detail]

TAB next, RET press, C-c C-k cancel, C-h m help
"))
        ;; Two rows, each a line with its own buttons, its title under it.
        (bindery-test--press "Add")
        (bindery-test--wait (lambda () (equal (bindery-test--row-ids) '(1))) "row 1")
        (bindery-test--press "Add")
        (bindery-test--wait (lambda () (equal (bindery-test--row-ids) '(1 2))) "row 2")
        (should (string-match-p "^      Title: +\\[Counter 2 *\\]$" (bindery-test--text)))
        ;; The second row's own [Increment]: its session, not another's;
        ;; the first row is not drawn again.
        (let ((first-title (bindery-test--row-widget 1 "title")))
          (bindery-test--press-row "Increment" "Id: 2 ")
          (bindery-test--wait-text "Id: 2 · Count: 1 · Summary: Counter 2: 1")
          (bindery-test--wait-text "  Total: +1")
          (should (string-match-p "Id: 1 · Count: 0 · Summary: Counter 1: 0" (bindery-test--text)))
          (should (eq first-title (bindery-test--row-widget 1 "title"))))
        ;; moveToTop(id): a button of the tab, its argument asked for.
        (bindery-test--answering "2" (bindery-test--press "Move to top"))
        (bindery-test--wait (lambda () (equal (bindery-test--row-ids) '(2 1))) "row 2 on top")
        (should (string-match-p "Id: 2 .*\n +Title: +\\[Counter 2 *\\]\n +- .*Id: 1 "
                                (bindery-test--text)))
        ;; A title typed into row 1 goes to row 1's session.
        (goto-char (widget-field-start (bindery-test--row-widget 1 "title")))
        (widget-kill-line)
        (bindery-test--type "Cups")
        (bindery-test--wait-text "Id: 1 · Count: 0 · Summary: Cups: 0")
        (should (equal (plist-get (plist-get (jsonrpc-request bindery--conn :session/state '(:session 5))
                                             :state)
                                  :title)
                       "Cups"))
        ;; Removing row 2 detaches its session.
        (let ((row (gethash 6 bindery--children)))
          (should row)
          (bindery-test--answering "2" (bindery-test--press "Remove"))
          (bindery-test--wait (lambda () (equal (bindery-test--row-ids) '(1))) "row 2 removed")
          (should (bindery--child-closed row))
          (should-not (gethash 6 bindery--children)))
        ;; The detail comes, is live, and goes.
        (bindery-test--answering "1" (bindery-test--press "Show detail"))
        (bindery-test--wait-text "Detail:\n  Id: +1\n  Title: +\\[Cups *\\]\n  Count: +0")
        (goto-char (point-min))
        (search-forward "Detail:")
        (search-forward "[Increment]")
        (backward-char 2)
        (bindery-test--key "RET")
        (bindery-test--wait-text "Detail:\n  Id: +1\n  Title: +\\[Cups *\\]\n  Count: +1")
        (bindery-test--press "Hide detail")
        (bindery-test--wait-text "\nDetail: (none)\n")
        ;; The clock tab's timer, on the deterministic clock.
        (bindery-test--press "Start")
        (bindery-test--wait-text "Is running: true")
        (bindery-advance-clock 3000)
        (bindery-test--wait-text "Clock tab:\n  Ticks: +3\n")
        (bindery-test--press "Stop")
        (bindery-test--wait-text "Is running: false")))))

(ert-deftest bindery-test-children-profile-field ()
  "A child's field typed in place; killing the form forgets its children."
  (bindery-test--with-appd '("--deterministic")
    (bindery-test--with-forms ((form "tabbedApp"))
      (with-current-buffer form
        (bindery-test--goto-field "name")
        (bindery-test--type "Ada")
        (bindery-test--wait-text "Name: +\\[Ada *\\]\n  Can save: true")
        (should (equal (plist-get (plist-get (jsonrpc-request bindery--conn :session/state '(:session 3))
                                             :state)
                                  :name)
                       "Ada"))
        (let ((conn bindery--conn))
          (should (gethash 3 (bindery--conn-sessions conn)))
          (kill-buffer form)
          (should-not (gethash 3 (bindery--conn-sessions conn))))))))

(provide 'bindery-test)
;;; bindery-test.el ends here

;;; A shared daemon through `binderyd --remote auto'

(defun bindery-test--saved-p (state text)
  "Non-nil once a daemon kept a keyed session holding TEXT under STATE.
STATE is a state directory: sessions are in bindery/sessions/,
a folder per socket."
  (let ((dir (concat state "/bindery/sessions")))
    (and (file-directory-p dir)
         (cl-some (lambda (file)
                    (with-temp-buffer
                      (insert-file-contents file)
                      (search-forward text nil t)))
                  (directory-files-recursively dir "\\.json\\'")))))

(ert-deftest bindery-test-shared-reconnect ()
  "A shared daemon killed under two forms: each says it was killed by signal 9 and
where its log is, as the forwarder said; the keyed one reconnects, its key reopened
with the value typed (restored from disk), and what is typed next reaches the new
daemon; the unkeyed one says its session is closed."
  (let* ((daemon (getenv "BINDERYD"))
         (runtime (make-temp-file "bindery-xdg" t))
         (state (make-temp-file "bindery-state" t))
         (socket (concat runtime "/bindery/daemon.sock"))
         (process-environment (append (list (concat "XDG_RUNTIME_DIR=" runtime)
                                            (concat "XDG_STATE_HOME=" state))
                                      process-environment))
         (bindery-arguments nil)
         (bindery-command (list daemon "--remote" "auto"))
         form other shown)
    (set-file-modes runtime #o700)
    (when bindery--current (bindery--stop bindery--current))
    (unwind-protect
        (progn
          (setq form (bindery-open "email" "signup")
                other (bindery-open "email"))
          (with-current-buffer form
            (bindery-test--type "ada@example.com")
            (bindery-test--settle)
            (bindery-test--wait-text "Email is valid"))
          ;; Written 250 ms after it changed: wait for it, as a person would not.
          (bindery-test--wait (lambda () (bindery-test--saved-p state "ada@example.com"))
                              "the keyed session on disk")
          (let ((pids (bindery-test--daemon-pids socket))
                (said nil))
            (should (= (length pids) 1))
            ;; What the form says while it waits is gone once it is back: keep it.
            (with-current-buffer form
              (add-hook 'after-change-functions
                        (lambda (beg end _) (push (buffer-substring-no-properties beg end) shown))
                        nil t))
            (setq said (format "binderyd died (exit 137): the daemon on %s (pid %s) was killed by signal 9 while this client was connected; its log: %s.log"
                               socket (car pids) socket))
            (signal-process (string-to-number (car pids)) 'KILL)
            (with-current-buffer other
              (let ((text (bindery-test--wait-text (regexp-quote said))))
                (should (string-match-p "Its session had no key: it ended with the daemon, and is closed" text))))
            (with-current-buffer form
              (bindery-test--wait-text (regexp-quote said))
              (let ((text (bindery-test--wait-text "^Reconnected: key \"signup\" opened again, its values restored\\.")))
                (should (string-match-p "^Email: +\\[ada@example\\.com +\\]" text))
                (should (string-match-p "Email is valid" text))
                (should (string-match-p (regexp-quote said) text)))
              (should (member (concat said "\nReconnecting in 0.25 s…\n") shown))
              (should (string-match-p "--- reconnecting in 0.25 s (attempt 1)"
                                      (bindery-test--text (bindery--log-buffer))))
              (should (eq (current-buffer) form))
              (should (string-match-p (format "\\`\\*bindery: email %d\\*\\'" bindery--session)
                                      (buffer-name)))
              (let ((now (bindery-test--daemon-pids socket)))
                (should (= (length now) 1))
                (should-not (equal now pids)))
              ;; The same buffer goes on: a new edit reaches the new daemon.
              (bindery-test--goto-field "email")
              (bindery-test--erase-field)
              (bindery-test--type "grace@example.com")
              (bindery-test--settle)
              (should (equal (plist-get (plist-get (bindery-request :session/state
                                                                    (list :session bindery--session)
                                                                    bindery--conn)
                                                   :state)
                                        :email)
                             "grace@example.com")))))
      (dolist (buffer (list form other))
        (when (buffer-live-p buffer) (kill-buffer buffer)))
      (when bindery--current (bindery--stop bindery--current))
      (dolist (pid (bindery-test--daemon-pids socket))
        (signal-process (string-to-number pid) 'SIGTERM))
      (ignore-errors (delete-directory runtime t))
      (ignore-errors (delete-directory state t)))))

(ert-deftest bindery-test-shared-remote-auto ()
  "With `bindery-command' set to the forwarder, a keyed form updates live while the
Python README's script fills the same keyed session, and what is typed reaches it."
  (let* ((daemon (getenv "BINDERYD"))
         (repo (or (locate-dominating-file daemon "clients/python/README.md")
                   (locate-dominating-file bindery-test--file "clients/python/README.md")
                   "/nonexistent/"))
         (readme (expand-file-name "clients/python/README.md" repo))
         (runtime (make-temp-file "bindery-xdg" t))
         (process-environment (append (list (concat "XDG_RUNTIME_DIR=" runtime)
                                            (concat "PYTHONPATH=" (expand-file-name "clients/python" repo)))
                                      process-environment))
         (bindery-arguments nil)
         (bindery-command (list daemon "--remote" "auto"))
         (output (generate-new-buffer " *bindery-script*"))
         form)
    (should (file-exists-p readme))
    (set-file-modes runtime #o700)
    (when bindery--current (bindery--stop bindery--current))
    (unwind-protect
        (let* ((text (with-temp-buffer (insert-file-contents readme) (buffer-string)))
               (start (string-match "```python\nfrom bindery import Client, WaitTimeout" text))
               (body (substring text (1+ (string-match "\n" text start))
                                (string-match "\n```" text (1+ start))))
               script)
          (setq form (bindery-open "survey" "form-1"))
          (setq script (start-process "bindery-script" output "python3" "-c" body))
          (with-current-buffer form
            (bindery-test--wait-text "Name: Ada Lovelace" form 20)
            (bindery-test--wait-text "Experience: +12\\.0 yrs" form 20)
            (bindery-test--goto-field "companyName")
            (bindery-test--type "Analytical Engines")
            (bindery-test--settle))
          (bindery-test--wait (lambda () (not (process-live-p script))) "the script to end" 20)
          (should (string-match-p "typed in the editor: Analytical Engines"
                                  (bindery-test--text output))))
      (when (buffer-live-p form) (kill-buffer form))
      (bindery-shutdown)
      (dolist (pid (bindery-test--daemon-pids (concat runtime "/bindery/daemon.sock")))
        (signal-process (string-to-number pid) 'SIGTERM))
      (kill-buffer output))))
