;;; bindery-mirror.el --- The package's copy of what the daemon said  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; The client mirror of protocol.md ("Client mirror"): per session the
;; connection knows (those opened here, and their children), its type,
;; revision, state and display text; the `setField's sent and not yet
;; answered; and which sessions are out of step.  `bindery-mirror-fold'
;; folds a `didChange' by the protocol's rules and says what it changed,
;; for the form to draw; `bindery-mirror-answer' applies the one rule
;; for the echo of a write.  Nothing here draws or talks to the daemon:
;; the corpus runner of the tests drives it directly
;; (Tests/ClientMirror/cases).
;;
;; Messages are as `jsonrpc.el' reads them: objects are plists with
;; keyword keys, arrays vectors, null nil and false `:json-false'.

;;; Code:

(require 'cl-lib)
(require 'seq)

(cl-defstruct (bindery-mirror (:constructor bindery-mirror-create)
                              (:copier nil))
  "What one connection's daemon told it."
  (sessions (make-hash-table) :documentation "Session id -> `bindery-mirror-session'.")
  (pending nil :documentation "The writes not answered yet, oldest first:
plists (:id :session :field :told), with :value or :text as sent.")
  (resync nil :documentation "The ids of the sessions out of step."))

(cl-defstruct (bindery-mirror-session (:constructor bindery-mirror-session-create)
                                      (:copier nil))
  "One session as the daemon told it.
STATE and DISPLAY are hash tables from a member's name (a string);
they stay the same objects for the session's life, so a form may hold them."
  type (revision 0)
  (state (make-hash-table :test #'equal))
  (display (make-hash-table :test #'equal)))

(defun bindery-mirror--name (key)
  "The member name of the plist KEY, `:email' -> \"email\"."
  (substring (symbol-name key) 1))

(defun bindery-mirror--fill (table plist)
  "Make the hash TABLE hold exactly the members of PLIST."
  (clrhash table)
  (cl-loop for (key value) on plist by #'cddr
           do (puthash (bindery-mirror--name key) value table)))

(defun bindery-mirror-get (mirror id)
  "The session ID of MIRROR, or nil when it holds none."
  (gethash id (bindery-mirror-sessions mirror)))

(defun bindery-mirror-out-of-step-p (mirror id)
  "Non-nil while MIRROR's session ID waits for its `session/state'."
  (memq id (bindery-mirror-resync mirror)))

(defun bindery-mirror--out-of-step (mirror id)
  "Mark MIRROR's session ID out of step."
  (cl-pushnew id (bindery-mirror-resync mirror)))

(defun bindery-mirror-take (mirror id entry)
  "Make ENTRY what MIRROR holds of session ID; return its children's ids.
ENTRY is a `session/open' or `session/state' result, or an entry of
`children' (:type :revision :state :display): taken whole, its
children too, and the session is in step again."
  (let ((session (or (bindery-mirror-get mirror id)
                     (puthash id (bindery-mirror-session-create)
                              (bindery-mirror-sessions mirror)))))
    (when (plist-get entry :type)
      (setf (bindery-mirror-session-type session) (plist-get entry :type)))
    (setf (bindery-mirror-session-revision session) (or (plist-get entry :revision) 0))
    (bindery-mirror--fill (bindery-mirror-session-state session) (plist-get entry :state))
    (bindery-mirror--fill (bindery-mirror-session-display session) (plist-get entry :display))
    (setf (bindery-mirror-resync mirror) (delq id (bindery-mirror-resync mirror)))
    (bindery-mirror--children mirror entry)))

(defun bindery-mirror--children (mirror message)
  "Take each entry of MESSAGE's `children' into MIRROR; return their ids."
  (cl-loop for (key entry) on (plist-get message :children) by #'cddr
           for id = (string-to-number (bindery-mirror--name key))
           do (bindery-mirror-take mirror id entry)
           collect id))

(defun bindery-mirror-drop (mirror id)
  "Forget MIRROR's session ID (closed, detached, or its form gone)."
  (remhash id (bindery-mirror-sessions mirror))
  (setf (bindery-mirror-resync mirror) (delq id (bindery-mirror-resync mirror))))

(defun bindery-mirror--apply-ops (list ops)
  "The vector the splice OPS make of LIST, or nil when an op does not fit it.
Each op, on the result of the one before, removes `delete' elements
at `at' and inserts the `insert' elements there."
  (when (vectorp list)
    (catch 'misfit
      (let ((items (append list nil)))
        (seq-doseq (op ops)
          (let ((at (plist-get op :at))
                (delete (or (plist-get op :delete) 0))
                (insert (or (plist-get op :insert) [])))
            (unless (and (natnump at) (natnump delete) (vectorp insert)
                         (<= (+ at delete) (length items)))
              (throw 'misfit nil))
            ;; One insert is one list, however long: no `apply'.
            (setq items (nconc (cl-subseq items 0 at) (append insert nil)
                               (nthcdr (+ at delete) items)))))
        (vconcat items)))))

(defun bindery-mirror-splice (list splice)
  "The vector SPLICE (:ops :length) makes of LIST, or nil when it does not fit.
An op past the end, a length that disagrees, or LIST not a list."
  (let ((new (bindery-mirror--apply-ops list (plist-get splice :ops))))
    (and new (eql (length new) (plist-get splice :length)) new)))

(defun bindery-mirror--misfit (name list splice)
  "Why SPLICE of the member NAME does not fit LIST, in words for the log."
  (let ((new (bindery-mirror--apply-ops list (plist-get splice :ops))))
    (cond (new (format "the splices of %s leave %d elements, the daemon says %S"
                       name (length new) (plist-get splice :length)))
          ((vectorp list) (format "the splices of %s do not apply to its %d elements"
                                  name (length list)))
          (t (format "the splices of %s do not apply to a value that is not a list" name)))))

(defun bindery-mirror--writer (mirror id session)
  "MIRROR's pending write ID to SESSION, or nil."
  (cl-find-if (lambda (w) (and (eql (plist-get w :id) id)
                               (eql (plist-get w :session) session)))
              (bindery-mirror-pending mirror)))

(defun bindery-mirror-fold (mirror params)
  "Fold the `didChange' PARAMS into MIRROR; return what it did, a plist.
\(:ignored t): a session not held, or out of step.  (:resync REASON):
the session is now out of step; ask `session/state' and give its
answer to `bindery-mirror-take'.  Otherwise (:changed NAMES :spliced
\((NAME . OLD-LIST) ...) :children IDS :detached IDS): the members
whose value or text changed, the lists spliced with what they were,
the child sessions taken and those dropped."
  (let* ((id (plist-get params :session))
         (session (bindery-mirror-get mirror id))
         (revision (plist-get params :revision)))
    (cond
     ((or (null session) (bindery-mirror-out-of-step-p mirror id))
      (list :ignored t))
     ((not (eql revision (1+ (bindery-mirror-session-revision session))))
      (bindery-mirror--out-of-step mirror id)
      (list :resync (format "revision %s after %s" revision
                            (bindery-mirror-session-revision session))))
     (t
      (let ((state (bindery-mirror-session-state session))
            (display (bindery-mirror-session-display session))
            (writer (bindery-mirror--writer mirror (plist-get params :cause) id))
            changed spliced)
        (cl-loop for (key value) on (plist-get params :changes) by #'cddr
                 for name = (bindery-mirror--name key)
                 do (puthash name value state)
                 ;; The daemon sends text for every member in the message
                 ;; that has one: a member without it (now a string) has none.
                 (remhash name display)
                 (push name changed)
                 (when (equal name (plist-get writer :field))
                   (setq writer (plist-put writer :told t))))
        (catch 'misfit
          (cl-loop
           for (key splice) on (plist-get params :splices) by #'cddr
           for name = (bindery-mirror--name key)
           ;; A list this client wrote: the daemon counts the value written as told.
           for own = (and (equal name (plist-get writer :field))
                          (plist-member writer :value))
           for old = (if own (plist-get writer :value) (gethash name state))
           for new = (and (or own (not (eq (gethash name state 'absent) 'absent)))
                          (bindery-mirror-splice old splice))
           do (if (null new)
                  (progn
                    (bindery-mirror--out-of-step mirror id)
                    (throw 'misfit (list :resync (bindery-mirror--misfit name old splice))))
                (puthash name new state)
                (push (cons name old) spliced)
                (when own (setq writer (plist-put writer :told t)))))
          (cl-loop for (key text) on (plist-get params :display) by #'cddr
                   for name = (bindery-mirror--name key)
                   do (puthash name text display)
                   (cl-pushnew name changed :test #'equal))
          (let ((children (bindery-mirror--children mirror params))
                (detached (append (plist-get params :detached) nil)))
            (dolist (child detached) (bindery-mirror-drop mirror child))
            (setf (bindery-mirror-session-revision session) revision)
            (list :changed (nreverse changed) :spliced (nreverse spliced)
                  :children children :detached detached))))))))

(defun bindery-mirror-write (mirror id session field input)
  "Note in MIRROR the `setField' ID to SESSION's FIELD, sent with INPUT.
INPUT is (:value VALUE) or (:text TEXT), as sent."
  (setf (bindery-mirror-pending mirror)
        (append (bindery-mirror-pending mirror)
                (list (append (list :id id :session session :field field :told nil)
                              input)))))

(defun bindery-mirror-pending-p (mirror session field)
  "Non-nil while a write to SESSION's FIELD is not answered."
  (cl-some (lambda (w) (and (eql (plist-get w :session) session)
                            (equal (plist-get w :field) field)))
           (bindery-mirror-pending mirror)))

(defun bindery-mirror-answer (mirror id result error)
  "Fold the answer (RESULT, or ERROR) to MIRROR's request ID.
Return nil for a request that is no pending write; else (:write W),
with :resync t when the answer names a revision the session has not
reached (the write's `didChange' was lost): ask `session/state'.

The one rule for the echo: a write answered without error leaves the
field holding what was written, unless a `didChange' the write caused
carried the field (the model stored something else).  Text is the
daemon's to read: what it stored is known only as that text, and as
the value of a member that holds a string."
  (let ((write (cl-find id (bindery-mirror-pending mirror)
                        :key (lambda (w) (plist-get w :id)))))
    (when write
      (setf (bindery-mirror-pending mirror) (delq write (bindery-mirror-pending mirror)))
      (let* ((id (plist-get write :session))
             (session (bindery-mirror-get mirror id))
             (field (plist-get write :field)))
        (if (or error (null session) (bindery-mirror-out-of-step-p mirror id))
            (list :write write)
          (let ((state (bindery-mirror-session-state session))
                (revision (plist-get result :revision)))
            (unless (or (plist-get write :told)
                        (eq (gethash field state 'absent) 'absent))
              (if (plist-member write :value)
                  (puthash field (plist-get write :value) state)
                (puthash field (plist-get write :text) (bindery-mirror-session-display session))
                (when (stringp (gethash field state))
                  (puthash field (plist-get write :text) state))))
            (if (and (integerp revision)
                     (> revision (bindery-mirror-session-revision session)))
                (progn (bindery-mirror--out-of-step mirror id)
                       (list :write write :resync t))
              (list :write write))))))))

(defun bindery-mirror-shown (mirror id)
  "What a face shows of MIRROR's session ID: a new hash table of its state,
each field a write is pending to holding the last value (or text) written."
  (let ((shown (copy-hash-table (bindery-mirror-session-state (bindery-mirror-get mirror id)))))
    (dolist (write (bindery-mirror-pending mirror))
      (when (eql (plist-get write :session) id)
        (puthash (plist-get write :field)
                 (if (plist-member write :value) (plist-get write :value) (plist-get write :text))
                 shown)))
    shown))

(provide 'bindery-mirror)
;;; bindery-mirror.el ends here
