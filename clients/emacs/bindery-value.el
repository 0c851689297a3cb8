;;; bindery-value.el --- The daemon's text for values, and text regions that update  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; What a member shows: the daemon's text (protocol.md, "Display and
;; text"), never this package's reading of a value.  The daemon sends
;; no text for a list's elements or a command's result: those are drawn
;; in the compact form of `bindery--format-inline', the one place the
;; package writes a value (it never reads one back).  Values are as
;; `jsonrpc.el' reads them: objects as plists, arrays as vectors, null
;; as nil, false as `:json-false'.  And "slots": regions of a form's
;; text between two markers that are replaced in place, keeping every
;; window's point where the person left it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

;;; Lists' elements and results: the package's compact form

(defun bindery--object-p (value)
  "Non-nil if VALUE is a JSON object as `jsonrpc.el' reads it (a plist)."
  (and (consp value) (keywordp (car value))))

(defun bindery--format-inline (value &optional nested)
  "Return VALUE as one line of text.
Top-level objects read `key: value, ...'; NESTED ones get braces."
  (cond ((null value) "(none)")
        ((eq value t) "yes")
        ((eq value :json-false) "no")
        ((stringp value) value)
        ;; A float prints the Lisp way, with its point: 3.0.
        ((numberp value) (number-to-string value))
        ((vectorp value)
         (if (zerop (length value)) "(empty)"
           (concat "[" (mapconcat (lambda (v) (bindery--format-inline v t))
                                  value ", ")
                   "]")))
        ((bindery--object-p value)
         (let ((text (mapconcat #'identity
                                (cl-loop for (key member) on value by #'cddr
                                         collect (concat (substring (symbol-name key) 1) ": "
                                                         (bindery--format-inline member t)))
                                ", ")))
           (if nested (concat "{" text "}") text)))
        (t (format "%S" value))))

(defun bindery--rows-p (value)
  "Non-nil if VALUE is a non-empty array of objects or arrays: a line each."
  (and (vectorp value) (> (length value) 0)
       (cl-every (lambda (v) (or (bindery--object-p v) (vectorp v))) value)))

(defun bindery--format-lines (value)
  "Return VALUE as a list of lines for a read-only output.
A multi-line string keeps its lines; an array of objects or arrays
gets one line per element (one line per movie); the rest one line."
  (cond ((stringp value) (split-string value "\n"))
        ((bindery--rows-p value) (mapcar #'bindery--format-inline value))
        (t (list (bindery--format-inline value)))))

;;; The daemon's text

(defun bindery--member-text (name value display)
  "Return the one line showing the member NAME, of VALUE.
DISPLAY (a hash table: member name -> text) holds the daemon's text
for every member that is not a string, a list or a child; a string is
its own text; a list, which the daemon sends no text for, is its JSON
\(the daemon reads a list of numbers or strings back)."
  (let ((shown (gethash name display)))
    (cond (shown shown)
          ((null value) "")
          ((stringp value) value)
          (t (bindery--json-text value)))))

(defun bindery--refusal (error)
  "Return the words shown for ERROR, a JSON-RPC error plist answering a write.
Text the daemon could not read: what it expected."
  (let ((expected (plist-get (plist-get error :data) :expected)))
    (if (and (eql (plist-get error :code) -32602) (stringp expected))
        (concat "expected " expected)
      (or (plist-get error :message) "failed"))))

(defun bindery--read-json (text)
  "Parse TEXT as JSON for sending: objects become hash tables, so {} stays {}."
  (json-parse-string text :object-type 'hash-table
                     :null-object nil :false-object :json-false))

(defun bindery--json-text (value)
  "Return VALUE (as `jsonrpc.el' reads it) as JSON text."
  ;; Emacs 28 serializes only arrays and objects: wrap, then unwrap.
  (let ((text (json-serialize (vector value)
                              :null-object nil :false-object :json-false)))
    (substring text 1 -1)))

;;; Slots: regions of text replaced in place

(defun bindery--slot-create ()
  "Return an empty slot at point.
Its end marker does not advance yet, so the text the form inserts
after it while it is built stays out; `bindery--slot-finalize' then
lets it grow with what is put in it."
  (cons (copy-marker (point) nil) (copy-marker (point) nil)))

(defun bindery--slot-finalize (slot)
  "Let SLOT's end advance over text inserted in it, once the form is built."
  (set-marker-insertion-type (cdr slot) t))

(defun bindery--keeping-points (beg end replace &optional stay)
  "Call REPLACE, which rewrites the text from BEG to END, and keep points.
Points before the region stay, points after it follow the text, and
points inside keep their offset where they can: the point of the
buffer and of every window showing it, so updates never move the
person's cursor.  With STAY, points at END stay too: text inserted
at END goes after them.  The change leaves the buffer's modified
flag as it was (a form keeps no undo list: see `bindery-undo')."
  (let* ((size (buffer-size))
         (modified (buffer-modified-p))
         (windows (delq (selected-window)
                        (get-buffer-window-list (current-buffer) nil t)))
         (window-points (mapcar #'window-point windows))
         (point (point)))
    (let ((buffer-undo-list t))
      (funcall replace))
    (restore-buffer-modified-p modified)
    (let* ((delta (- (buffer-size) size))
           (move (lambda (p)
                   (cond ((< p beg) p)
                         ((and stay (= p end)) p)
                         ((>= p end) (+ p delta))
                         (t (min p (+ end delta)))))))
      (goto-char (funcall move point))
      (cl-mapc (lambda (w p) (set-window-point w (funcall move p)))
               windows window-points))))

(defun bindery--slot-set (slot text &optional face)
  "Show TEXT, in FACE, in SLOT, unless it shows exactly that already."
  (let ((beg (marker-position (car slot)))
        (end (marker-position (cdr slot)))
        (new (if face (propertize text 'face face) text)))
    (unless (equal-including-properties new (buffer-substring beg end))
      (let ((inhibit-read-only t))
        (bindery--keeping-points
         beg end
         (lambda ()
           ;; Insert before deleting, so markers on both sides stay put.
           (goto-char beg)
           (insert new)
           (delete-region (point) (cdr slot))))))))

(provide 'bindery-value)
;;; bindery-value.el ends here
