;;; bindery.el --- Forms for the view models of binderyd  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, convenience, processes

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Bindery hosts view models (MVVM) in a daemon, binderyd, that speaks
;; JSON-RPC 2.0 over its standard input and output.  This package turns
;; any view model type the daemon serves into an Emacs form built with
;; widget.el, from the schema the daemon describes: nothing here knows
;; a particular type.
;;
;; M-x bindery-open asks for a type and opens its form, "*bindery: TYPE N*"
;; (N is the session).  Type in a field and the daemon hears it as you
;; type; outputs change in place; buttons run commands without making
;; Emacs wait.  With C-u it also asks for a session key (opening a key
;; again returns the same live session); with C-u C-u also for the
;; constructor arguments as a JSON object, such as {"symbol":"He"} for
;; the type `element'.  A type that refuses to open without arguments
;; makes bindery-open ask for them anyway.
;;
;; Keys in a form: TAB and S-TAB move, RET presses a button (or toggles
;; a checkbox, or offers a menu's choices), C-c C-c invokes the command
;; at point, C-c C-k cancels a running one, C-c C-s sets any member to a
;; JSON value, g (or C-c C-r) fetches the state again, q buries the form,
;; C-c C-l shows *bindery-log*.  Killing the buffer closes the session.
;; Undo is the daemon's: C-/ (any key bound to `undo') sends session/undo,
;; C-M-_ (any key bound to `undo-redo') session/redo; a step is a burst of
;; typing in one field.  Lists that gain or lose elements come as splices
;; (the package asks for them): only those elements' lines change.
;;
;; One daemon serves the whole Emacs: it starts on first use, from
;; `bindery-command' (a program, or a list of it and its arguments),
;; $BINDERYD, `binderyd' on `exec-path', or this repository's
;; .build/release or .build/debug, with `bindery-arguments' added, and
;; stops when Emacs exits (or on M-x bindery-shutdown).  Its standard
;; error goes to *bindery-log* (M-x bindery-log).  Through a shared
;; daemon (`binderyd --remote auto' as `bindery-command'), a daemon that
;; dies is reached again with backoff, and forms opened with a key are
;; reopened, their values restored.  M-x customize-group
;; RET bindery lists the options; an option set to a value it cannot
;; use is refused with a message that names it.  See README.md.

;;; Code:

(require 'cl-lib)

;; Find the sibling files even when this one is loaded or compiled by
;; its path alone (emacs -l .../bindery.el), without touching `load-path';
;; the binding holds while they load theirs, so they need no such block.
(eval-and-compile
  (let ((load-path (cons (file-name-directory
                          (or load-file-name
                              (bound-and-true-p byte-compile-current-file)
                              buffer-file-name
                              default-directory))
                         load-path)))
    (require 'bindery-settings)
    (require 'bindery-daemon)
    (require 'bindery-value)
    (require 'bindery-form)
    (require 'bindery-command)
    (require 'bindery-dev)
    (require 'bindery-reattach)
    (require 'bindery-record)))

(defconst bindery-version "0.1.0"
  "Version of the Bindery Emacs package.")

(defun bindery--args (args)
  "Return ARGS, given as JSON text, a hash table or a plist, ready to send.
Empty text means no arguments."
  (cond ((null args) nil)
        ((stringp args)
         (and (not (string-match-p "\\`[ \t\n]*\\'" args))
              (let ((value (condition-case err (bindery--read-json args)
                             (json-parse-error
                              (user-error "Arguments are not JSON: %s"
                                          (error-message-string err))))))
                (unless (hash-table-p value)
                  (user-error "Arguments must be a JSON object, like {\"symbol\":\"He\"}"))
                value)))
        (t args)))

(defun bindery--read-args (type &optional why)
  "Ask for TYPE's constructor arguments as JSON; WHY says what went wrong."
  (read-string (format "%sArguments for %s (a JSON object, like {\"symbol\":\"He\"}): "
                       (if why (concat why "\n") "")
                       type)))

(defun bindery--read-open-args (prefix)
  "Read `bindery-open's arguments; PREFIX is the raw prefix argument."
  (bindery--check-form-settings)        ; before asking anything
  (let* ((conn (bindery-connection))
         (type (completing-read "View model type: " (bindery-types conn) nil t))
         (key (and prefix
                   (let ((k (read-string "Session key (empty for none): ")))
                     (and (not (equal k "")) k))))
         (args (and (>= (prefix-numeric-value prefix) 16)
                    (bindery--read-args type))))
    (list type key args t)))

(defun bindery--open-session (conn type key args interactive)
  "Open a session of TYPE on CONN with KEY and ARGS; return the result.
When INTERACTIVE and the type refuses to open, ask for arguments and retry."
  (let ((params (append (list :type type)
                        (and key (list :key key))
                        (and args (list :args args)))))
    (condition-case err
        (bindery-request :session/open params conn)
      (jsonrpc-error
       (if (and interactive (eql (bindery--error-code err) -32018))
           (bindery--open-session
            conn type key
            (bindery--args (bindery--read-args type (bindery--error-message err)))
            interactive)
         (user-error "Cannot open %s: %s" type (bindery--error-message err)))))))

;;;###autoload
(defun bindery-open (type &optional key args interactive)
  "Open a form of the view model TYPE in a new session; return its buffer.
KEY, a string, names the session: opening a key that a live session
holds shows that session again.  ARGS are the type's constructor
arguments: JSON text such as \"{\\\"symbol\\\":\\\"He\\\"}\", a hash
table or a plist.  Interactively, \\[universal-argument] asks for KEY,
\\[universal-argument] \\[universal-argument] for KEY and ARGS, and
a type that refuses to open without arguments has them asked for.
INTERACTIVE is non-nil when called as a command."
  (interactive (bindery--read-open-args current-prefix-arg))
  ;; Before the session opens: a form that cannot be built would close it.
  (bindery--check-form-settings)
  (let* ((conn (bindery-connection))
         (schema (bindery--schema conn type))
         (opened (bindery--open-session conn type key (bindery--args args)
                                        interactive))
         (session (plist-get opened :session))
         (buffer (or (cl-find session (bindery--forms conn)
                              :key (apply-partially #'buffer-local-value 'bindery--session))
                     (let ((buffer (generate-new-buffer "*bindery*")))
                       (condition-case err
                           (with-current-buffer buffer
                             (bindery--form-show conn schema opened key))
                         ;; Killing the half-built form closes the session.
                         (error (kill-buffer buffer)
                                (signal (car err) (cdr err))))
                       buffer))))
    (when interactive (pop-to-buffer-same-window buffer))
    buffer))

(provide 'bindery)
;;; bindery.el ends here
