;;; bindery-value.el --- Values as text, and text regions that update  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; How JSON values (as `jsonrpc.el' reads them: objects as plists,
;; arrays as vectors, null as nil, false as `:json-false') are shown and
;; read back, and "slots": regions of a form's text between two markers
;; that are replaced in place, keeping every window's point where the
;; person left it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'time-date)

;;; Showing values

(defun bindery--object-p (value)
  "Non-nil if VALUE is a JSON object as `jsonrpc.el' reads it (a plist)."
  (or (and (consp value) (keywordp (car value)))
      (hash-table-p value)))

(defun bindery--object-pairs (object)
  "Return OBJECT's members as a list of (NAME . VALUE), in order."
  (if (hash-table-p object)
      (let (pairs)
        (maphash (lambda (k v) (push (cons (format "%s" k) v) pairs)) object)
        (nreverse pairs))
    (cl-loop for (key value) on object by #'cddr
             collect (cons (substring (symbol-name key) 1) value))))

(defun bindery--format-number (number)
  "Return NUMBER as text: integers plainly, floats the Lisp way (3.0)."
  (if (integerp number) (number-to-string number)
    (let ((text (number-to-string number)))
      (if (string-match-p "\\`-?[0-9]+\\'" text) (concat text ".0") text))))

(defun bindery--format-inline (value &optional nested)
  "Return VALUE as one line of text.
Top-level objects read `key: value, ...'; NESTED ones get braces."
  (cond ((null value) "(none)")
        ((eq value t) "yes")
        ((eq value :json-false) "no")
        ((stringp value) value)
        ((numberp value) (bindery--format-number value))
        ((vectorp value)
         (if (zerop (length value)) "(empty)"
           (concat "[" (mapconcat (lambda (v) (bindery--format-inline v t))
                                  value ", ")
                   "]")))
        ((bindery--object-p value)
         (let ((text (mapconcat (lambda (pair)
                                  (concat (car pair) ": "
                                          (bindery--format-inline (cdr pair) t)))
                                (bindery--object-pairs value) ", ")))
           (if nested (concat "{" text "}") text)))
        (t (format "%S" value))))

(defun bindery--format-lines (value)
  "Return VALUE as a list of lines for a read-only output.
A multi-line string keeps its lines; an array of objects or arrays
gets one line per element (one line per movie); the rest one line."
  (cond ((stringp value) (split-string value "\n"))
        ((and (vectorp value) (> (length value) 0)
              (cl-every (lambda (v) (or (bindery--object-p v) (vectorp v)))
                        value))
         (mapcar #'bindery--format-inline value))
        (t (list (bindery--format-inline value)))))

(defun bindery--format-block (value indent)
  "Return VALUE's lines joined, every line after the first indented by INDENT."
  (mapconcat #'identity (bindery--format-lines value)
             (concat "\n" (make-string indent ?\s))))

;;; Reading values back

(defun bindery--input-text (value &optional schema)
  "Return the text an editable field of type SCHEMA shows for VALUE."
  (cond ((null value) "")
        ((and schema (bindery--typed-p schema)) (bindery--type-text schema value))
        ((stringp value) value)
        ((numberp value) (bindery--format-number value))
        (t (bindery--format-inline value))))

(defconst bindery--integer-regexp "\\`[-+]?[0-9]+\\'")
(defconst bindery--number-regexp
  "\\`[-+]?\\(?:[0-9]+\\.?[0-9]*\\|\\.[0-9]+\\)\\(?:[eE][-+]?[0-9]+\\)?\\'")

(defun bindery--parse-input (text schema)
  "Read TEXT typed in the field described by SCHEMA.
Return (:ok . VALUE), VALUE ready to send (nil is null), or
\(:error . MESSAGE)."
  (let ((type (plist-get schema :type))
        (nullable (eq (plist-get schema :nullable) t))
        (trimmed (string-trim text)))
    (cond
     ((and nullable (equal trimmed "")
           (or (not (equal type "string")) (equal text "")))
      (cons :ok nil))
     ((bindery--typed-p schema) (bindery--type-parse schema text))
     ((equal type "integer")
      (if (string-match-p bindery--integer-regexp trimmed)
          (cons :ok (string-to-number trimmed))
        (cons :error (if (equal trimmed "") "a whole number is required"
                       (format "%S is not a whole number" trimmed)))))
     ((equal type "number")
      (if (string-match-p bindery--number-regexp trimmed)
          (cons :ok (string-to-number trimmed))
        (cons :error (if (equal trimmed "") "a number is required"
                       (format "%S is not a number" trimmed)))))
     (t (cons :ok text)))))

(defun bindery--same-value-p (a b)
  "Non-nil if the JSON values A and B are the same (3 and 3.0 are)."
  (if (and (numberp a) (numberp b)) (= a b) (equal a b)))

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

;;; Typed values: formats, lists, structs, dictionaries, unions

;; protocol.md's value types beyond plain strings, numbers and booleans,
;; as one line of text a field shows and reads back:
;;   a list, a set        1, 2, 5           nested: [1, 2, 5]
;;   struct, dictionary   a: 1, b: [x]      nested: {a: 1, b: [x]}
;;   union                circle(radius: 1.5), rectangle(2, 3), point
;;   any                  its JSON
;; A string that would read otherwise is written as a JSON string.

(defconst bindery--formats
  '(("date-time" bindery--date-time-p
     "a date and time, ISO 8601 like 2025-11-25T10:00:00Z")
    ("uuid" bindery--uuid-p "a UUID like 0f8fad5b-d9cb-469f-a165-70867728950e")
    ("uri" bindery--uri-p "a URL (no spaces) like https://example.com/")
    ("decimal" bindery--decimal-p "a decimal number like 12.50")
    ("byte" bindery--base64-p "base64 like AAEC+g=="))
  "Formats of strings checked before sending: (FORMAT PREDICATE SAYS).")

(defun bindery--date-time-p (text)
  "Non-nil if TEXT is an ISO 8601 date and time with seconds and an offset."
  (let ((case-fold-search nil))
    (and (string-match (concat "\\`\\([0-9]\\{4\\}\\)-\\([0-9][0-9]\\)-\\([0-9][0-9]\\)"
                               "T\\([0-9][0-9]\\):\\([0-9][0-9]\\):\\([0-9][0-9]\\)"
                               "\\(?:\\.[0-9]+\\)?\\(?:Z\\|[-+][0-9][0-9]:?[0-9][0-9]\\)\\'")
                       text)
         (let ((year (string-to-number (match-string 1 text)))
               (month (string-to-number (match-string 2 text)))
               (day (string-to-number (match-string 3 text))))
           (and (<= 1 month 12) (<= 1 day (date-days-in-month year month))
                (< (string-to-number (match-string 4 text)) 24)
                (< (string-to-number (match-string 5 text)) 60)
                (< (string-to-number (match-string 6 text)) 60))))))

(defun bindery--uuid-p (text)
  "Non-nil if TEXT is a UUID."
  (string-match-p (concat "\\`[[:xdigit:]]\\{8\\}-[[:xdigit:]]\\{4\\}-[[:xdigit:]]\\{4\\}"
                          "-[[:xdigit:]]\\{4\\}-[[:xdigit:]]\\{12\\}\\'")
                  text))

(defun bindery--uri-p (text)
  "Non-nil if TEXT can be a URL: not empty, no spaces."
  (string-match-p "\\`[^[:space:]]+\\'" text))

(defun bindery--decimal-p (text)
  "Non-nil if TEXT is a decimal number."
  (string-match-p bindery--number-regexp text))

(defun bindery--base64-p (text)
  "Non-nil if TEXT is padded base64."
  (and (zerop (% (length text) 4))
       (string-match-p "\\`[A-Za-z0-9+/]*=\\{0,2\\}\\'" text)))

(defun bindery--check-format (schema text)
  "Return nil if TEXT fits SCHEMA's format, else why not."
  (let ((format (assoc (plist-get schema :format) bindery--formats)))
    (and format (not (funcall (nth 1 format) text))
         (format "%S is not %s" text (nth 2 format)))))

(defun bindery--scalar-type-p (schema)
  "Non-nil if SCHEMA is a string, boolean, integer, number or enum."
  (member (plist-get schema :type) '("string" "boolean" "integer" "number" "enum")))

(defun bindery--typed-p (schema)
  "Non-nil if a field of SCHEMA is read as typed text (not a plain scalar)."
  (or (plist-get schema :format) (not (bindery--scalar-type-p schema))))

(defun bindery--union-case (schema name)
  "Return the case NAME of the union SCHEMA, or nil."
  (cl-find name (append (plist-get schema :cases) nil)
           :key (lambda (c) (plist-get c :name)) :test #'equal))

(defun bindery--positional-p (members)
  "Non-nil if MEMBERS (of a union case) are unlabelled: _0, _1, ..."
  (and (> (length members) 0)
       (cl-every (lambda (m) (string-match-p "\\`_[0-9]+\\'" (plist-get m :name)))
                 members)))

(defun bindery--nested-string (text)
  "Return TEXT as it reads inside a compound value."
  (if (or (equal text "") (equal text "null")
          (string-match-p "[],:[{}()\"\\\n]\\|\\`[[:space:]]\\|[[:space:]]\\'" text))
      (bindery--json-text text)
    text))

(defun bindery--type-text (schema value &optional nested)
  "Return VALUE, of the type SCHEMA, as one line of text; NESTED inside another."
  (let ((type (plist-get schema :type)))
    (cond
     ((null value) (if nested "null" ""))
     ((equal type "any") (bindery--json-text value))
     ((eq value t) "true")
     ((eq value :json-false) "false")
     ((numberp value) (bindery--format-number value))
     ((stringp value) (if nested (bindery--nested-string value) value))
     ((equal type "union")
      (let* ((name (plist-get value :case))
             (members (append (plist-get (bindery--union-case schema name) :members) nil))
             (bare (bindery--positional-p members))
             (parts (delq nil
                          (mapcar (lambda (m)
                                    (let ((v (plist-get value (intern (concat ":" (plist-get m :name))))))
                                      (and v (if bare (bindery--type-text m v t)
                                               (concat (plist-get m :name) ": "
                                                       (bindery--type-text m v t))))))
                                  members))))
        (if parts (format "%s(%s)" name (string-join parts ", ")) (format "%s" name))))
     ((vectorp value)
      (let ((body (mapconcat (lambda (v) (bindery--type-text (plist-get schema :items) v t))
                             value ", ")))
        (if nested (concat "[" body "]") body)))
     ((bindery--object-p value)
      (let ((body (mapconcat
                   (lambda (pair)
                     (let ((member (if (equal type "dictionary") (plist-get schema :values)
                                     (cl-find (car pair) (append (plist-get schema :members) nil)
                                              :key (lambda (m) (plist-get m :name))
                                              :test #'equal))))
                       (concat (if (string-match-p "[],:[{}()\" ]" (car pair))
                                   (bindery--json-text (car pair))
                                 (car pair))
                               ": " (bindery--type-text member (cdr pair) t))))
                   (bindery--object-pairs value) ", ")))
        (if nested (concat "{" body "}") body)))
     (t (format "%S" value)))))

(defun bindery--split-top (text)
  "Split TEXT at the commas outside brackets and JSON strings."
  (let ((depth 0) (start 0) (i 0) quoted parts)
    (while (< i (length text))
      (let ((c (aref text i)))
        (cond (quoted (cond ((eq c ?\\) (setq i (1+ i)))
                            ((eq c ?\") (setq quoted nil))))
              ((eq c ?\") (setq quoted t))
              ((memq c '(?\[ ?\{ ?\()) (setq depth (1+ depth)))
              ((memq c '(?\] ?\} ?\))) (setq depth (1- depth)))
              ((and (eq c ?,) (zerop depth))
               (push (substring text start i) parts)
               (setq start (1+ i)))))
      (setq i (1+ i)))
    (nreverse (cons (substring text start) parts))))

(defun bindery--unquote (text)
  "Return TEXT, or the string it is when it is a JSON string."
  (or (and (string-prefix-p "\"" text)
           (let ((v (ignore-errors (bindery--read-json text))))
             (and (stringp v) v)))
      text))

(defun bindery--key-value (text)
  "Split TEXT, \"key: value\", at its first colon: (KEY . VALUE), or nil."
  (let ((text (string-trim text)))
    (if (string-match "\\`\\(\"\\(?:[^\"\\]\\|\\\\.\\)*\"\\)[ \t]*:\\(.*\\)\\'" text)
        (cons (bindery--unquote (match-string 1 text)) (match-string 2 text))
      (and (string-match "\\`\\([^:]*?\\)[ \t]*:\\(.*\\)\\'" text)
           (cons (match-string 1 text) (match-string 2 text))))))

(defun bindery--strip (text open close)
  "Return TEXT trimmed, without its OPEN and CLOSE brackets if it has them."
  (let ((text (string-trim text)))
    (if (and (> (length text) 1) (string-prefix-p open text) (string-suffix-p close text))
        (substring text 1 -1)
      text)))

(defun bindery--type-parse (schema text &optional nested)
  "Read TEXT as a value of the type SCHEMA; NESTED inside another value.
Return (:ok . VALUE), VALUE ready to send (objects as hash tables),
or (:error . MESSAGE)."
  (catch 'bindery--parsed
    (let ((type (plist-get schema :type))
          (text (string-trim text)))
      (when (and (or (equal text "") (and nested (equal text "null")))
                 (or (eq (plist-get schema :nullable) t) (eq (plist-get schema :optional) t)))
        (throw 'bindery--parsed (cons :ok nil)))
      (pcase type
        ("any" (condition-case err (cons :ok (bindery--read-json text))
                 (error (cons :error (format "not JSON: %s" (error-message-string err))))))
        ((or "string" "enum")
         (let ((value (if nested (bindery--unquote text) text)))
           (cond ((equal type "enum")
                  (if (member value (append (plist-get schema :cases) nil)) (cons :ok value)
                    (cons :error (format "%S is not one of: %s" value
                                         (mapconcat #'identity (append (plist-get schema :cases) nil) ", ")))))
                 ((bindery--check-format schema value)
                  (cons :error (bindery--check-format schema value)))
                 (t (cons :ok value)))))
        ("boolean" (pcase text ("true" (cons :ok t)) ("false" (cons :ok :json-false))
                     (_ (cons :error (format "%S is not true or false" text)))))
        ((or "integer" "number")
         (bindery--parse-input text (list :type type)))
        ("array"
         (let ((body (bindery--strip text "[" "]")) (i 0) items)
           (unless (equal (string-trim body) "")
             (dolist (part (bindery--split-top body))
               (setq i (1+ i))
               (let ((item (bindery--type-parse (plist-get schema :items) part t)))
                 (when (eq (car item) :error)
                   (throw 'bindery--parsed (cons :error (format "item %d: %s" i (cdr item)))))
                 (push (cdr item) items))))
           (cons :ok (vconcat (nreverse items)))))
        ((or "object" "dictionary")
         (let ((body (bindery--strip text "{" "}"))
               (object (make-hash-table :test #'equal))
               (members (append (plist-get schema :members) nil)))
           (unless (equal (string-trim body) "")
             (dolist (part (bindery--split-top body))
               (let* ((pair (bindery--key-value part))
                      (key (car pair))
                      (member (if (equal type "dictionary") (plist-get schema :values)
                                (cl-find key members :key (lambda (m) (plist-get m :name))
                                         :test #'equal))))
                 (cond ((or (null key) (equal key ""))
                        (throw 'bindery--parsed
                               (cons :error (format "%S is not \"name: value\"" (string-trim part)))))
                       ((null member)
                        (throw 'bindery--parsed
                               (cons :error (format "no member %S (it has %s)" key
                                                    (mapconcat (lambda (m) (plist-get m :name))
                                                               members ", "))))))
                 (let ((value (bindery--type-parse member (cdr pair) t)))
                   (when (eq (car value) :error)
                     (throw 'bindery--parsed (cons :error (format "%s: %s" key (cdr value)))))
                   (unless (and (null (cdr value)) (eq (plist-get member :optional) t))
                     (puthash key (cdr value) object))))))
           (dolist (m members)
             (unless (or (eq (plist-get m :optional) t)
                         (gethash (plist-get m :name) object))
               (unless (member (plist-get m :name) (hash-table-keys object))
                 (throw 'bindery--parsed (cons :error (format "%s is missing" (plist-get m :name)))))))
           (cons :ok object)))
        ("union" (bindery--union-parse schema text))
        (_ (cons :error (format "cannot read a %s" type)))))))

(defun bindery--union-parse (schema text)
  "Read TEXT, like circle(radius: 1.5), as a value of the union SCHEMA."
  (let* ((name (and (string-match "\\`\\([[:alnum:]_]+\\)[ \t]*\\(?:(\\(.*\\))\\)?\\'" text)
                    (match-string 1 text)))
         (args (and name (match-string 2 text)))
         (case (and name (bindery--union-case schema name)))
         (members (append (plist-get case :members) nil))
         (value (make-hash-table :test #'equal))
         (position 0))
    (if (null case)
        (cons :error (format "%S is not one of: %s" text
                             (mapconcat (lambda (c) (plist-get c :name))
                                        (append (plist-get schema :cases) nil) ", ")))
      (catch 'bindery--union
        (puthash "case" name value)
        (when (and args (not (equal (string-trim args) "")))
          (dolist (part (bindery--split-top args))
            (let* ((pair (bindery--key-value part))
                   (member (and pair (cl-find (string-trim (car pair)) members
                                              :key (lambda (m) (plist-get m :name))
                                              :test #'equal)))
                   (given (if member (cdr pair) part)))
              (unless member
                (setq member (nth position members)
                      position (1+ position))
                (unless member
                  (throw 'bindery--union
                         (cons :error (format "%s takes %d values" name (length members))))))
              (let ((parsed (bindery--type-parse member given t)))
                (when (eq (car parsed) :error)
                  (throw 'bindery--union
                         (cons :error (format "%s: %s" (plist-get member :name) (cdr parsed)))))
                (puthash (plist-get member :name) (cdr parsed) value)))))
        (dolist (m members)
          (unless (or (eq (plist-get m :optional) t) (eq (plist-get m :nullable) t)
                      (member (plist-get m :name) (hash-table-keys value)))
            (throw 'bindery--union
                   (cons :error (format "%s needs %s" name
                                        (if (bindery--positional-p members)
                                            (format "%d values" (length members))
                                          (plist-get m :name)))))))
        (cons :ok value)))))

(defun bindery--type-lines (schema value item-text)
  "Return the lines of the read-only VALUE of SCHEMA, or nil for the plain ones.
A dictionary: a \"key: value\" line per key; a union: its case and
scalar members, then the elements of a list it carries, one a line,
each made by ITEM-TEXT; any: its JSON."
  (pcase (plist-get schema :type)
    ("dictionary"
     (let ((pairs (and value (bindery--object-pairs value)))
           (values (plist-get schema :values)))
       (if (null pairs) (list "(none)")
         (mapcar (lambda (pair)
                   (concat (car pair) ": "
                           (bindery--type-text values (cdr pair)
                                               (not (bindery--scalar-type-p values)))))
                 pairs))))
    ("union"
     (if (null value) (list "(none)")
       (let* ((name (plist-get value :case))
              (members (append (plist-get (bindery--union-case schema name) :members) nil))
              list rest)
         (dolist (m members)
           (let ((v (plist-get value (intern (concat ":" (plist-get m :name))))))
             (cond ((and (null list) (vectorp v) (equal (plist-get m :type) "array")
                         (not (bindery--scalar-type-p (plist-get m :items))))
                    (setq list v))
                   (v (push (if (bindery--positional-p members) (bindery--type-text m v t)
                              (concat (plist-get m :name) ": " (bindery--type-text m v t)))
                            rest)))))
         (cons (concat name (if rest (format "(%s)" (string-join (nreverse rest) ", ")) "")
                       (if (and list (zerop (length list))) " (empty)" ""))
               (and list (mapcar item-text list))))))
    ("any" (list (bindery--json-text value)))))

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
