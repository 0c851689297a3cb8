;;; bindery-settings.el --- The user options of Bindery, and reading them  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; Every user option of the package, and the one function that reads
;; each.  What a person naturally writes works: a string where a list is
;; expected, a vector for a list, a number written as a string, ~ in a
;; file name.  Anything else is refused with a `user-error' that names
;; the option and what it expects, before it can become a type error
;; deep inside jsonrpc.el or widget.el.

;;; Code:

(require 'subr-x)

(defgroup bindery nil
  "Forms for the view models hosted by binderyd."
  :group 'tools
  :prefix "bindery-")

(defcustom bindery-command nil
  "The program that starts binderyd, with or without arguments.
A string is the program: a file name (~ is expanded) or a name
looked up on the variable `exec-path', then in ~/.local/bin.  A
list (or a vector) is the program, then its arguments; numbers
among them become strings and an argument that starts with ~ is
expanded.  When nil (or
\"\"), the daemon is found from the
environment variable BINDERYD, then `binderyd' on `exec-path',
then ~/.local/bin/binderyd (where ./scripts/install puts it),
then this repository's .build/release/binderyd and
.build/debug/binderyd."
  :type '(choice (const :tag "Find it" nil)
                 (file :tag "Program")
                 (cons :tag "Program and arguments"
                       (file :tag "Program")
                       (repeat :tag "Arguments" (string :tag "Argument")))))

(defcustom bindery-arguments nil
  "Extra arguments given to binderyd, for example (\"--deterministic\").
A string is split at spaces; an argument that starts with ~ is
expanded, as a shell would."
  :type '(choice (repeat :tag "Arguments" (string :tag "Argument"))
                 (string :tag "Arguments separated by spaces")))

(defcustom bindery-events-buffer-size 0
  "How many characters of JSON-RPC traffic `jsonrpc.el' keeps.
0 keeps none; nil keeps all, in the buffer *bindery events*."
  :type '(choice (const :tag "Unlimited" nil)
                 (natnum :tag "Characters")))

(defcustom bindery-send-delay 0.15
  "Seconds of quiet in a field before what was typed is sent.
The latest text is always what is sent, and pending text is sent
at once before a command runs."
  :type '(number :tag "Seconds"))

(defcustom bindery-field-width 30
  "Width of editable text fields; longer text makes them grow."
  :type '(natnum :tag "Columns"))

(defcustom bindery-command-timeout nil
  "Seconds after which a running command is given up on; nil waits forever."
  :type '(choice (const :tag "Never" nil)
                 (number :tag "Seconds")))

;;; Reading them

(defun bindery--refuse (option expected)
  "Signal a `user-error': OPTION's value is not what it EXPECTED."
  (user-error "%s should be %s, not %S" option expected (symbol-value option)))

(defun bindery--as-list (value)
  "Return VALUE as a list if it is a proper list or a vector, else `:no'."
  (cond ((vectorp value) (append value nil))
        ((proper-list-p value) value)
        (t :no)))

(defconst bindery--number-regexp
  "\\`[-+]?\\(?:[0-9]+\\.?[0-9]*\\|\\.[0-9]+\\)\\(?:[eE][-+]?[0-9]+\\)?\\'"
  "A number as a person writes a setting (\"250\", \"0.5\").")

(defun bindery--as-number (value)
  "Return VALUE as a finite number, reading a numeric string; else nil."
  (let ((number (cond ((numberp value) value)
                      ((and (stringp value)
                            (string-match-p bindery--number-regexp
                                            (string-trim value)))
                       (string-to-number (string-trim value))))))
    (and number (< (abs number) 1.0e+INF) number)))

(defun bindery--number-setting (option expected valid)
  "Return OPTION's value as a number that VALID accepts.
A number written as a string is read; anything else is refused as
not what OPTION EXPECTED."
  (let ((number (bindery--as-number (symbol-value option))))
    (if (and number (funcall valid number))
        number
      (bindery--refuse option expected))))

(defun bindery--tilde (argument)
  "Return ARGUMENT with a leading ~ or ~/ expanded, as a shell would."
  (if (string-match-p "\\`~\\(?:/\\|\\'\\)" argument)
      (expand-file-name argument)
    argument))

(defun bindery--words (option expected words)
  "Return WORDS, OPTION's list, as strings, or refuse it as not EXPECTED.
Numbers become strings; arguments starting with ~ are expanded."
  (mapcar (lambda (word)
            (cond ((stringp word) (bindery--tilde word))
                  ((numberp word) (number-to-string word))
                  (t (bindery--refuse option expected))))
          words))

(defconst bindery--command-expects
  "a program (a string, like \"~/.local/bin/binderyd\") or a list: the program, then its arguments"
  "What `bindery-command' accepts, for its messages.")

(defun bindery--command-setting ()
  "Return `bindery-command' as a list of strings; nil when unset.
The program is returned as written: see `bindery--program'."
  (let ((value bindery-command))
    (cond ((member value '(nil "" [])) nil)
          ((stringp value) (list value))
          ((and (listp (bindery--as-list value))
                (stringp (car (bindery--as-list value))))
           (let ((words (bindery--as-list value)))
             (cons (car words)
                   (bindery--words 'bindery-command bindery--command-expects
                                   (cdr words)))))
          (t (bindery--refuse 'bindery-command bindery--command-expects)))))

(defun bindery--arguments-setting ()
  "Return `bindery-arguments' as a list of strings."
  (let* ((expected "a list of strings, like (\"--deterministic\"), or one string of arguments separated by spaces")
         (value bindery-arguments)
         (words (if (stringp value) (split-string value) (bindery--as-list value))))
    (if (listp words)
        (bindery--words 'bindery-arguments expected words)
      (bindery--refuse 'bindery-arguments expected))))

(defun bindery--events-buffer-size-setting ()
  "Return `bindery-events-buffer-size' as a whole number, or nil for all."
  (and bindery-events-buffer-size
       (round (bindery--number-setting
               'bindery-events-buffer-size
               "a number of characters (0 keeps none), or nil to keep all"
               (lambda (n) (>= n 0))))))

(defun bindery--send-delay-setting ()
  "Return `bindery-send-delay' in seconds."
  (bindery--number-setting 'bindery-send-delay
                           "a number of seconds, like 0.15"
                           (lambda (n) (>= n 0))))

(defun bindery--send-delay ()
  "Return `bindery-send-delay', or its standard value after saying why not.
For use while typing, where an error would stop the form's hooks."
  (condition-case err
      (bindery--send-delay-setting)
    (user-error
     (let ((standard (eval (car (get 'bindery-send-delay 'standard-value)) t)))
       (message "%s; using %s" (error-message-string err) standard)
       standard))))

(defun bindery--field-width-setting ()
  "Return `bindery-field-width' as a whole number of columns."
  (round (bindery--number-setting 'bindery-field-width
                                  "a number of columns, like 30"
                                  (lambda (n) (>= n 1)))))

(defun bindery--command-timeout-setting ()
  "Return `bindery-command-timeout' in seconds, or nil for never."
  (and bindery-command-timeout
       (bindery--number-setting
        'bindery-command-timeout
        "a number of seconds greater than 0, or nil to wait forever"
        (lambda (n) (> n 0)))))

(defun bindery--check-form-settings ()
  "Refuse, naming it, the first option a form reads that is not valid."
  (bindery--send-delay-setting)
  (bindery--field-width-setting)
  (bindery--command-timeout-setting))

(provide 'bindery-settings)
;;; bindery-settings.el ends here
