;;; bindery-form.el --- The widget form of one Bindery session  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; A form is a buffer in `bindery-form-mode' built with widget.el from a
;; view model's schema: an editable field, checkbox or menu per writable
;; field, text per read-only output, a button per command.  What the
;; person types is sent with `setField' shortly after they stop; what the
;; daemon pushes with `didChange' is put in place without moving point
;; (a list that gains or loses elements, sent as splices, only gets or
;; loses their lines).  Undo and redo are the daemon's (`session/undo',
;; `session/redo'); the buffer keeps no undo list of its own.  The
;; buttons of commands are in bindery-command.el.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'seq)
(require 'wid-edit)
(require 'bindery-settings)
(require 'bindery-daemon)
(require 'bindery-mirror)
(require 'bindery-value)

;; Buttons live in bindery-command.el, which requires this file.
(declare-function bindery--command-press "bindery-command" (command &optional args))
(declare-function bindery--command-schema "bindery-command" (command))
(declare-function bindery--command-label "bindery-command" (command))
(declare-function bindery--commands-insert "bindery-command" (schemas))
(declare-function bindery--row-buttons-insert "bindery-command" (schemas))
(declare-function bindery--commands-update "bindery-command" (&optional names))
(declare-function bindery--commands-stop "bindery-command" ())
;; A shared daemon lost, and found again: bindery-reattach.el.
(declare-function bindery--form-lost "bindery-reattach" (reason))

(defface bindery-title '((t :weight bold :height 1.2 :inherit default))
  "Face of a form's title, the view model type."
  :group 'bindery)

(defface bindery-error '((t :inherit error))
  "Face of errors shown next to fields and under buttons."
  :group 'bindery)

(defvar bindery--inhibit-notify nil
  "Non-nil while the form itself changes a widget: do not send it back.")

(cl-defstruct (bindery--field (:constructor bindery--field-create)
                              (:copier nil))
  "One field or output of a form."
  name label schema kind widget slot error timer
  ;; A child member (kind child or rows): the slot of its heading's note
  ;; and the child session ids drawn in its slot.  An output on a row's
  ;; line (inline) shows its value on one line.
  note drawn inline)

(cl-defstruct (bindery--child (:constructor bindery--child-create)
                              (:copier nil))
  "A child view model session drawn inside its root's form (issue 24).
Its members and buttons are drawn under its parent's member, and the
form's buffer-local variables are bound to these while it is handled
\(`bindery--with-child').  STATE and DISPLAY are its mirror's."
  session schema state display fields commands history
  (value-column 0) (indent "") closed widgets start)

(defvar-local bindery--conn nil "The connection this form's session lives on.")
(defvar-local bindery--session nil "The session id of this form.")
(defvar-local bindery--type nil "The view model type of this form.")
(defvar-local bindery--key nil "The key the session was opened with, if any.")
(defvar-local bindery--state nil
  "Hash table: state member name -> value (the connection's mirror's).")
(defvar-local bindery--display nil
  "Hash table: state member name -> the daemon's text for its value (the mirror's).")
(defvar-local bindery--fields nil "The form's `bindery--field's, in order.")
(defvar-local bindery--commands nil "The form's commands, in order.")
(defvar-local bindery--status nil "Slot under the title for news of the daemon.")
(defvar-local bindery--dead nil "Why the session is gone, or nil while it lives.")
(defvar-local bindery--waiter nil
  "While this form waits for its shared daemon to answer again, its waiter
\(see `bindery--waiters'); nil otherwise.")
(defvar-local bindery--value-column 0 "Column where values start.")
(defvar-local bindery--child nil
  "The child session being handled (`bindery--with-child'); nil: the form's own.")
(defvar-local bindery--children nil "Hash table: child session id -> `bindery--child'.")
(defvar-local bindery--child-schemas nil "Hash table: child type name -> its schema.")
(defvar-local bindery--indent "" "What the lines of the session being drawn start with.")
(defvar-local bindery--history nil
  "Alist: id of an unanswered `session/undo' or `session/redo' -> whether
a `didChange' it caused has come (which is before its answer).")

(defmacro bindery--with-child (child &rest body)
  "Run BODY as the session CHILD (a `bindery--child'; nil: the form's own).
The form's variables (session, state, fields, commands...) are bound
to CHILD's, and what BODY sets of them is kept in CHILD."
  (declare (indent 1) (debug t))
  (let ((c (make-symbol "child")))
    `(let ((,c ,child))
       (if (not ,c) (progn ,@body)
         (let ((bindery--child ,c)
               (bindery--session (bindery--child-session ,c))
               (bindery--state (bindery--child-state ,c))
               (bindery--display (bindery--child-display ,c))
               (bindery--fields (bindery--child-fields ,c))
               (bindery--commands (bindery--child-commands ,c))
               (bindery--history (bindery--child-history ,c))
               (bindery--value-column (bindery--child-value-column ,c))
               (bindery--indent (bindery--child-indent ,c))
               (bindery--dead (or bindery--dead
                                  (and (bindery--child-closed ,c) "This row is gone"))))
           (unwind-protect (progn ,@body)
             (setf (bindery--child-fields ,c) bindery--fields
                   (bindery--child-commands ,c) bindery--commands
                   (bindery--child-history ,c) bindery--history
                   (bindery--child-value-column ,c) bindery--value-column)))))))

(defmacro bindery--in (buffer &rest body)
  "Run BODY in BUFFER if it is still live."
  (declare (indent 1) (debug t))
  (let ((b (make-symbol "buffer")))
    `(let ((,b ,buffer))
       (when (buffer-live-p ,b)
         (with-current-buffer ,b ,@body)))))

;;; The mode

(defvar bindery-form-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") 'bindery-invoke)
    (define-key map (kbd "C-c C-k") 'bindery-cancel)
    (define-key map (kbd "C-c C-s") 'bindery-set-field)
    (define-key map (kbd "C-c C-r") 'bindery-refresh)
    (define-key map (kbd "C-c C-l") 'bindery-log)
    ;; C-/, C-_, C-x u (undo) and C-?, C-M-_ (undo-redo): the daemon's;
    ;; so are Evil's u and C-r, and undo-tree's keys.
    (dolist (command '(undo undo-only evil-undo undo-tree-undo))
      (define-key map (vector 'remap command) 'bindery-undo))
    (dolist (command '(undo-redo evil-redo undo-tree-redo))
      (define-key map (vector 'remap command) 'bindery-redo))
    map)
  "Keys of a form that work everywhere in it, in fields too.")

(defvar bindery-form-mode-map
  (let ((map (make-sparse-keymap)))
    ;; Not on the composed map itself: `define-key' would put them in
    ;; `bindery-form-command-map', and so in fields, where g and q type.
    (define-key map "g" 'bindery-refresh)
    (define-key map "q" 'quit-window)
    (set-keymap-parent map (make-composed-keymap bindery-form-command-map
                                                 widget-keymap))
    map)
  "Keymap of `bindery-form-mode', outside editable fields.")

(defvar bindery-field-keymap
  (make-composed-keymap bindery-form-command-map widget-field-keymap)
  "Keymap inside a form's editable fields (typing inserts there).")

(define-derived-mode bindery-form-mode nil "Bindery"
  "A form of one binderyd session.
Fields send what is typed as it is typed; outputs follow the daemon.

\\<bindery-form-mode-map>\\[widget-forward] and \\[widget-backward] move between fields and buttons; \\[widget-button-press] presses
a button, toggles a checkbox or offers a menu's choices.
\\[bindery-invoke] runs the command at point (or the form's command),
\\[bindery-cancel] cancels a running one, \\[bindery-set-field] sets any member to a JSON value,
\\[bindery-refresh] fetches the whole state again, \\[quit-window] buries the form.  Killing
the buffer closes the session.  \\[bindery-undo] and \\[bindery-redo] undo and redo in the
daemon: a step is a burst of typing in one field.

\\{bindery-form-mode-map}"
  (setq truncate-lines nil)
  (bindery--no-undo)
  ;; widget.el turns undo back on when it (re)creates a widget, as a
  ;; checkbox or a menu does when it changes.
  (add-hook 'post-command-hook #'bindery--no-undo nil t)
  (add-hook 'kill-buffer-hook #'bindery--form-killed nil t))

(defun bindery--no-undo ()
  "Keep no undo list in this form.
The daemon's history is the form's undo (`bindery-undo'); Emacs's
own would put back text the daemon no longer holds."
  (setq buffer-undo-list t))

;;; Building a form

(defun bindery--fields-from (schemas)
  "A field per member schema of SCHEMAS, with no widget yet."
  (mapcar (lambda (s)
            (bindery--field-create :name (plist-get s :name)
                                   :label (plist-get s :label)
                                   :schema s
                                   :kind (bindery--kind-of s)))
          schemas))

(defun bindery--label-width (fields)
  "The width of the longest label of FIELDS (0 for none)."
  (apply #'max 0 (mapcar (lambda (f) (length (bindery--field-label f))) fields)))

(defun bindery--kind-of (schema)
  "Return how the field SCHEMA is shown: text, checkbox, choice or output.
Every other writable field is text: the daemon's, sent back as typed."
  (let ((type (plist-get schema :type)))
    (cond ((equal type "viewModel") 'child)
          ((and (equal type "array")
                (equal (plist-get (plist-get schema :items) :type) "viewModel"))
           'rows)
          ((not (eq (plist-get schema :writable) t)) 'output)
          ((equal type "boolean") 'checkbox)
          ((equal type "enum") 'choice)
          (t 'text))))

(cl-defun bindery--insert-field (field)
  "Insert FIELD's line showing its value, and its error line.
A child member is a heading; what it shows is drawn under it later."
  (when (memq (bindery--field-kind field) '(child rows))
    (insert bindery--indent (bindery--field-label field) ":")
    (setf (bindery--field-note field) (bindery--slot-create))
    (insert "\n")
    (setf (bindery--field-slot field) (bindery--slot-create))
    (cl-return-from bindery--insert-field))
  (insert (string-pad (concat bindery--indent (bindery--field-label field) ": ")
                      bindery--value-column))
  ;; No :help-echo: widget.el's own ("M-TAB: complete field") would
  ;; cover our messages each time TAB lands on a field.
  (let ((value (gethash (bindery--field-name field) bindery--state))
        (common (list :notify #'bindery--field-notify :bindery-field field
                      :bindery-child bindery--child :help-echo nil)))
    (if (eq (bindery--field-kind field) 'output)
        (setf (bindery--field-slot field) (bindery--slot-create))
      (setf (bindery--field-widget field)
            (pcase (bindery--field-kind field)
              ('text
               (apply #'widget-create 'editable-field
                      :size (bindery--field-width-setting) :format "[%v]"
                      :keymap bindery-field-keymap
                      :value (bindery--field-text field)
                      common))
              ('checkbox (apply #'widget-create 'checkbox :value (eq value t) common))
              ('choice
               (apply #'widget-create 'menu-choice
                      :format "%[[%v]%]" :tag (bindery--field-label field)
                      :value value :void '(item :format "%t" :tag "?")
                      (append common
                              (mapcar (lambda (c) `(const :format "%t" :tag ,c ,c))
                                      (plist-get (bindery--field-schema field)
                                                 :cases))
                              (and (eq (plist-get (bindery--field-schema field)
                                                  :nullable)
                                       t)
                                   '((const :format "%t" :tag "(none)" nil))))))))))
  (when (and bindery--child (bindery--field-widget field))
    (push (bindery--field-widget field) (bindery--child-widgets bindery--child)))
  (insert "\n")
  (setf (bindery--field-error field) (bindery--slot-create)))

(defmacro bindery--field-slots (field slots)
  "Push the slots of FIELD on the list SLOTS (to finalize them)."
  `(dolist (slot (list (bindery--field-error ,field) (bindery--field-slot ,field)
                       (bindery--field-note ,field)))
     (when slot (push slot ,slots))))

(defun bindery--form-show (conn schema opened key)
  "Make the current buffer the form of OPENED, a `session/open' result on CONN.
SCHEMA is its type's, KEY the key it was opened with; the buffer is
named after the session, and hears its `didChange's."
  (let ((session (plist-get opened :session)))
    (bindery--form-build conn schema session key
                         (bindery-mirror-take (bindery--conn-mirror conn) session opened))
    (rename-buffer (format "*bindery: %s %d*" bindery--type session) t)
    (bindery--register conn session (bindery--handler (current-buffer)))))

(defun bindery--forms (conn)
  "Return the live forms of CONN."
  (cl-remove-if-not (lambda (buffer)
                      (with-current-buffer buffer
                        (and (derived-mode-p 'bindery-form-mode)
                             (eq bindery--conn conn)
                             (not bindery--dead))))
                    (buffer-list)))

(defun bindery--form-build (conn schema session key children)
  "Fill the current buffer with the form of SCHEMA for SESSION, opened with KEY.
SESSION is held by CONN's mirror, and so are CHILDREN, the ids of the
child sessions under it."
  (bindery-form-mode)
  (let ((held (bindery-mirror-get (bindery--conn-mirror conn) session)))
    (setq bindery--conn conn
          bindery--session session
          bindery--type (plist-get schema :type)
          bindery--key key
          bindery--state (bindery-mirror-session-state held)
          bindery--display (bindery-mirror-session-display held)))
  (setq bindery--children (make-hash-table)
        bindery--child-schemas (bindery--collect-schemas schema (make-hash-table :test #'equal)))
  (bindery--adopt children)
  (setq bindery--fields (bindery--fields-from (plist-get schema :fields))
        bindery--value-column (+ 2 (bindery--label-width bindery--fields)))
  (let ((inhibit-read-only t) slots)
    (erase-buffer)
    (insert (propertize bindery--type 'face 'bindery-title)
            (propertize (format "  session %d%s" bindery--session
                                (if key (format ", key %S" key) ""))
                        'face 'shadow)
            "\n")
    (setq bindery--status (bindery--slot-create))
    (insert "\n")
    (dolist (field bindery--fields)
      (bindery--insert-field field)
      (bindery--field-slots field slots))
    (when (> (length (plist-get schema :commands)) 0)
      (insert "\n")
      (setq slots (append (bindery--commands-insert (plist-get schema :commands))
                          slots)))
    (insert "\n"
            (propertize "TAB next, RET press, C-c C-k cancel, C-h m help"
                        'face 'shadow)
            "\n")
    (push bindery--status slots)
    (mapc #'bindery--slot-finalize slots))
  (widget-setup)
  (bindery--no-undo)
  (dolist (field bindery--fields) (bindery--field-render field t))
  (bindery--commands-update)
  ;; Long values wrap at words, continuing under the value column.
  (setq word-wrap t
        wrap-prefix (make-string bindery--value-column ?\s))
  (set-buffer-modified-p nil)
  (goto-char (point-min))
  (ignore-errors (widget-forward 1)))

;;; Showing the state

(defun bindery--mirror ()
  "The mirror of this form's connection."
  (bindery--conn-mirror bindery--conn))

(defun bindery--render-members (names &optional force)
  "Show the state members NAMES (from the mirror) where the form shows them.
With FORCE, fields being edited are overwritten too."
  (let (commands)
    (dolist (name names)
      (let ((field (cl-find name bindery--fields
                            :key #'bindery--field-name :test #'equal)))
        (cond (field (bindery--field-render field force))
              ((string-match "\\`\\(.*\\)\\.\\(enabled\\|running\\)\\'" name)
               (cl-pushnew (match-string 1 name) commands :test #'equal)))))
    (when commands (bindery--commands-update commands))))

(defun bindery--field-busy-p (field)
  "Non-nil if FIELD has text not sent yet, or a write not answered.
The mirror's rule: while a write is pending the field shows what was
typed, never a value that arrives meanwhile."
  (or (bindery--field-timer field)
      (bindery-mirror-pending-p (bindery--mirror) bindery--session
                                (bindery--field-name field))))

(defun bindery--field-render (field &optional force)
  "Show FIELD's value from the state; FORCE as `bindery--render-members'."
  (let ((value (gethash (bindery--field-name field) bindery--state))
        (widget (bindery--field-widget field)))
    (pcase (bindery--field-kind field)
      ((or 'child 'rows) (bindery--children-render field value))
      ('output
       (bindery--slot-set (bindery--field-slot field)
                          (if (bindery--field-inline field)
                              (concat (bindery--field-label field) ": "
                                      (if (vectorp value) (bindery--format-inline value)
                                        (bindery--field-text field)))
                            (bindery--field-block field value))))
      (kind
       (let ((shown (pcase kind
                      ('text (bindery--field-text field))
                      ('checkbox (eq value t))
                      (_ value))))
         ;; Never overwrite what the person is typing, nor a control being
         ;; written (it shows what was chosen until the answer).
         (unless (or (equal (widget-value widget) shown)
                     (and (not force) (bindery--field-busy-p field)))
           (bindery--widget-set widget shown)))))))

(defun bindery--field-text (field)
  "Return the one line FIELD's value shows: the daemon's text."
  (let ((name (bindery--field-name field)))
    (bindery--member-text name (gethash name bindery--state) bindery--display)))

(defun bindery--widget-set (widget value)
  "Set WIDGET to VALUE without sending it, keeping points in place."
  (let ((inhibit-read-only t)
        (bindery--inhibit-notify t))
    (bindery--keeping-points
     (marker-position (widget-get widget :from))
     (marker-position (widget-get widget :to))
     (lambda () (save-excursion (widget-value-set widget value))))))

(defun bindery--field-set-error (field message)
  "Show MESSAGE (nil clears it) on the line under FIELD."
  (bindery--slot-set (bindery--field-error field)
                     (if message
                         (concat (make-string bindery--value-column ?\s)
                                 "! " message "\n")
                       "")
                     'bindery-error))

;;; Sending what the person types

(defun bindery--field-input (field)
  "Return what `setField' sends for FIELD's widget: (:text TYPED) or (:value V).
Typed text is the daemon's to read; a checkbox and a menu of cases are
controls, whose value is known."
  (let ((widget (bindery--field-widget field)))
    (pcase (bindery--field-kind field)
      ('text (list :text (widget-value widget)))
      ('checkbox (list :value (if (widget-value widget) t :json-false)))
      (_ (list :value (widget-value widget))))))

(defun bindery--field-notify (widget &optional _child event)
  "Send WIDGET's field: soon when typed in (EVENT a change), else at once."
  (let ((field (widget-get widget :bindery-field)))
    (when (and field (not bindery--inhibit-notify)
               (not (eq (car-safe event) 'before-change)))
      (bindery--with-child (widget-get widget :bindery-child)
        (if (eq (bindery--field-kind field) 'text)
            (bindery--field-schedule field)
          (bindery--field-flush field))))))

(defun bindery--field-cancel (field)
  "Forget FIELD's timer, if it has one: what was typed is not sent by it."
  (when (bindery--field-timer field)
    (cancel-timer (bindery--field-timer field))
    (setf (bindery--field-timer field) nil)))

(defun bindery--field-schedule (field)
  "Send FIELD after `bindery-send-delay' unless typed in again before."
  (bindery--field-cancel field)
  (let ((buffer (current-buffer))
        (child bindery--child))
    (setf (bindery--field-timer field)
          (run-with-timer (bindery--send-delay) nil
                          (lambda () (bindery--in buffer
                                       (bindery--with-child child
                                         (bindery--field-flush field))))))))

(defun bindery--field-flush (field)
  "Send FIELD's current text (or control's value) now."
  (bindery--field-cancel field)
  (if (not (bindery--live-p))
      (message "%s" (bindery--dead-message))
    (bindery--field-send field (bindery--field-input field))))

(defun bindery--field-send (field input)
  "Send INPUT, (:text TEXT) or (:value VALUE), for FIELD with `setField'.
The daemon's refusal shows under the field; what was typed stays."
  (let* ((buffer (current-buffer))
         (child bindery--child)
         (mirror (bindery--mirror))
         (session bindery--session)
         (name (bindery--field-name field))
         id)
    (setq id (bindery--async
              bindery--conn :setField
              (append (list :session session :field name) input)
              :success (lambda (result)
                         (let ((answer (bindery-mirror-answer mirror id result nil)))
                           (bindery--in buffer (bindery--with-child child
                             (if (plist-get answer :resync)
                                 (bindery-refresh t)
                               (unless (bindery-mirror-pending-p mirror session name)
                                 ;; The field holds what was written, or what the model stored.
                                 (bindery--field-set-error field nil)
                                 (bindery--field-render field)))))))
              :error (lambda (error)
                       (bindery-mirror-answer mirror id nil error)
                       ;; What was typed stays, to fix, with the refusal under it.
                       (bindery--in buffer (bindery--with-child child
                         (bindery--field-refused field error))))))
    (when id (bindery-mirror-write mirror id session name input))))

(defun bindery--field-refused (field error)
  "Show ERROR, a JSON-RPC error plist answering a write of FIELD."
  (let ((message (bindery--refusal error)))
    (bindery--field-set-error field message)
    (message "%s: %s" (bindery--field-label field) message)))

(defun bindery--flush-typed ()
  "Send now what was typed in the fields of the session at hand and not sent."
  (dolist (field bindery--fields)
    (when (bindery--field-timer field) (bindery--field-flush field))))

(defun bindery--flush-fields ()
  "Send every field with unsent text, and wait briefly for the answers.
Then the state (a command's `enabled' above all) reflects all typing."
  (bindery--flush-typed)
  ;; And those of the child sessions drawn in this form.
  (when bindery--children
    (maphash (lambda (_id child)
               (unless (eq child bindery--child)
                 (bindery--with-child child (bindery--flush-typed))))
             bindery--children))
  (with-timeout (2 nil)
    (while (and (bindery--live-p) (bindery--writes-pending-p))
      (accept-process-output nil 0.02))))

(defun bindery--writes-pending-p ()
  "Non-nil while a write of the session at hand or of a child is not answered."
  (let ((sessions (cons bindery--session
                        (and bindery--children (hash-table-keys bindery--children)))))
    (cl-some (lambda (write) (memq (plist-get write :session) sessions))
             (bindery-mirror-pending (bindery--mirror)))))

;;; Talking to the connection

(defun bindery--live-p ()
  "Non-nil while this form's session can still be talked to."
  (and (not bindery--dead) bindery--conn (jsonrpc-running-p bindery--conn)))

(defun bindery--dead-message ()
  "Say that this form's session is gone."
  (if bindery--waiter
      (format "%s; reconnecting (what is typed meanwhile is not sent)" bindery--dead)
    (format "%s; M-x bindery-open starts a new daemon"
            (or bindery--dead "binderyd is gone"))))

(defun bindery--handler (buffer)
  "Return the connection's handler of session events for the form BUFFER."
  (lambda (event data)
    (bindery--in buffer
      (pcase event
        ('didChange (bindery--did-change data))
        ('lost (bindery--form-lost data))
        ('died (bindery--form-died data))))))

(defun bindery--did-change (params)
  "Fold the `didChange' PARAMS into the mirror and show what it changed.
Out of step (a lost message, splices that do not fit this copy of a
list): fetch the whole state."
  (let* ((cause (plist-get params :cause))
         (step (and cause (assq cause bindery--history)))
         (folded (bindery-mirror-fold (bindery--mirror) params)))
    (when step (setcdr step t))
    (cond
     ((plist-get folded :ignored))
     ((plist-get folded :resync)
      (bindery--log "session %s: %s; resynchronising" bindery--session
                    (plist-get folded :resync))
      (bindery-refresh t))
     (t
      ;; Children first shown here are known before the values showing them.
      (bindery--adopt (plist-get folded :children))
      (bindery--render-members (plist-get folded :changed))
      (pcase-dolist (`(,name . ,old) (plist-get folded :spliced))
        (let ((field (cl-find name bindery--fields :key #'bindery--field-name :test #'equal))
              (splice (plist-get (plist-get params :splices) (intern (concat ":" name)))))
          (when field
            (when (eq (bindery--field-kind field) 'output)
              (bindery--splice-output field old (plist-get splice :ops)))
            ;; Whatever the splice left undone, the whole value.
            (bindery--field-render field))))
      (bindery--detach (plist-get folded :detached))))))

;;; Child view models (issue 24)

(defun bindery--collect-schemas (schema table)
  "Put the child view model types SCHEMA shows (nested) in TABLE; return it."
  (seq-doseq (field (plist-get schema :fields))
    (let ((type (if (equal (plist-get field :type) "array") (plist-get field :items) field)))
      (when (and (equal (plist-get type :type) "viewModel") (plist-get type :schema)
                 (not (gethash (plist-get type :typeName) table)))
        (puthash (plist-get type :typeName) (plist-get type :schema) table)
        (bindery--collect-schemas (plist-get type :schema) table))))
  table)

(defun bindery--adopt (ids &optional force)
  "Know the child sessions IDS, which the mirror holds.
New ones get their `didChange's; known ones (a resynchronisation) show
their state again, fields being edited too with FORCE."
  (dolist (id ids)
    (let ((known (gethash id bindery--children))
          (held (bindery-mirror-get (bindery--mirror) id)))
      (cond
       (known
        (bindery--with-child known
          (bindery--render-all force)))
       (held
        (let* ((type (bindery-mirror-session-type held))
               (child (bindery--child-create
                       :session id
                       :schema (or (gethash type bindery--child-schemas)
                                   (list :type type :fields [] :commands []))
                       :state (bindery-mirror-session-state held)
                       :display (bindery-mirror-session-display held))))
          (puthash id child bindery--children)
          (bindery--register bindery--conn id
                             (bindery--child-handler (current-buffer) child))))))))

(defun bindery--render-all (&optional force)
  "Show every member of the session at hand from the mirror."
  (let (names)
    (maphash (lambda (name _) (push name names)) bindery--state)
    (bindery--render-members (nreverse names) force)))

(defun bindery--detach (ids)
  "Forget the child sessions IDS: the daemon closed them."
  (seq-doseq (id ids)
    (let ((child (gethash id bindery--children)))
      (when child
        (setf (bindery--child-closed child) t)
        (bindery--unregister bindery--conn id)
        (remhash id bindery--children)))))

(defun bindery--child-handler (buffer child)
  "Return the handler of CHILD's `didChange's, drawn in BUFFER."
  (lambda (event data)
    (bindery--in buffer
      (when (and (eq event 'didChange) (not (bindery--child-closed child)))
        (bindery--with-child child (bindery--did-change data))))))

(defun bindery--children-render (field value)
  "Show under FIELD's heading its VALUE: a child ({session: id} or nil),
or rows ([{session: id}...]), one block a row.  They are drawn again
only when the list of sessions changes; a change inside one replaces
only its own values."
  (let* ((rows (eq (bindery--field-kind field) 'rows))
         (ids (if rows (mapcar (lambda (v) (plist-get v :session)) (append value nil))
                (and (plist-get value :session) (list (plist-get value :session))))))
    (bindery--slot-set (bindery--field-note field) (if ids "" " (none)"))
    (unless (equal ids (bindery--field-drawn field))
      (bindery--redraw-children field ids rows))))

(defun bindery--point-row (field)
  "Return (ID . OFFSET): the child drawn in FIELD that point is in, if any."
  (let ((slot (bindery--field-slot field)) found)
    (when (and (<= (car slot) (point)) (< (point) (cdr slot)))
      (dolist (id (bindery--field-drawn field))
        (let* ((child (gethash id bindery--children))
               (start (and child (bindery--child-start child))))
          (when (and start (marker-position start) (<= start (point)))
            (setq found (cons id (- (point) start)))))))
    found))

(defun bindery--redraw-children (field ids row)
  "Draw the child sessions IDS in FIELD's slot, as ROWs or one child.
Points outside stay; point on a row stays on that row, wherever it goes."
  (let* ((slot (bindery--field-slot field))
         (indent (concat bindery--indent "  "))
         (at (bindery--point-row field))
         (inhibit-read-only t)
         (bindery--inhibit-notify t))
    ;; What was typed in a row and not sent yet goes first.
    (dolist (id (bindery--field-drawn field))
      (let ((child (gethash id bindery--children)))
        (when child
          (bindery--with-child child (bindery--flush-typed)))))
    (bindery--keeping-points
     (marker-position (car slot)) (marker-position (cdr slot))
     (lambda ()
       (dolist (id (bindery--field-drawn field))
         (let ((child (gethash id bindery--children)))
           (when child (bindery--child-undraw child))))
       (delete-region (car slot) (cdr slot))
       (goto-char (car slot))
       (dolist (id ids)
         (let ((child (gethash id bindery--children)))
           (when child
             (setf (bindery--child-start child) (copy-marker (point)))
             (bindery--child-draw child indent row))))))
    (setf (bindery--field-drawn field) ids)
    (widget-setup)
    (let ((child (and at (gethash (car at) bindery--children))))
      (when (and child (memq (car at) ids))
        (goto-char (min (+ (bindery--child-start child) (cdr at)) (cdr slot)))))))

(defun bindery--child-undraw (child)
  "Delete the widgets of CHILD and of the children drawn in it."
  (dolist (field (bindery--child-fields child))
    (dolist (id (bindery--field-drawn field))
      (let ((grandchild (gethash id bindery--children)))
        (when grandchild (bindery--child-undraw grandchild))))
    (setf (bindery--field-drawn field) nil)
    (bindery--field-cancel field))
  (dolist (widget (bindery--child-widgets child))
    (widget-delete widget))
  (setf (bindery--child-widgets child) nil))

(defun bindery--child-draw (child indent row)
  "Insert CHILD's members and buttons at point, each line after INDENT.
A ROW is a line of its buttons and outputs, its writable fields under it."
  (setf (bindery--child-indent child) indent
        (bindery--child-widgets child) nil)
  (bindery--with-child child
    (let* ((schema (bindery--child-schema child))
           (under (if row (concat indent "  ") indent))
           slots)
      (setq bindery--fields (bindery--fields-from (plist-get schema :fields))
            bindery--value-column (+ (length under) 2 (bindery--label-width bindery--fields)))
      (when row
        (insert indent "- ")
        (setq slots (bindery--row-buttons-insert (plist-get schema :commands)))
        (let ((first t))
          (dolist (field bindery--fields)
            (when (eq (bindery--field-kind field) 'output)
              (unless first (insert " · "))
              (setq first nil)
              (setf (bindery--field-inline field) t
                    (bindery--field-slot field) (bindery--slot-create))
              (push (bindery--field-slot field) slots))))
        (insert "\n")
        ;; Until `bindery--with-child' ends: the fields under the line, and what they draw.
        (setq bindery--indent under))
      (dolist (field bindery--fields)
        (unless (bindery--field-inline field)
          (bindery--insert-field field)
          (bindery--field-slots field slots)))
      (unless row
        (setq slots (append (bindery--commands-insert (plist-get schema :commands)) slots)))
      (mapc #'bindery--slot-finalize slots)
      (dolist (field bindery--fields) (bindery--field-render field t))
      (bindery--commands-update))))

;;; List splices: only the lines of the elements spliced

(defun bindery--one-per-line-p (value)
  "Non-nil if the output VALUE shows one line per element."
  (and (bindery--rows-p value)
       (cl-notany (lambda (line) (string-search "\n" line))
                  (bindery--format-lines value))))

;;; Showing outputs by type, with row buttons

(defvar bindery-row-button-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") 'bindery-press-row-button)
    (define-key map (kbd "SPC") 'bindery-press-row-button)
    (define-key map [mouse-2] 'bindery-press-row-button)
    (define-key map [follow-link] 'mouse-face)
    map)
  "Keys on the buttons of a list's rows.")

(defun bindery--row-commands (field)
  "Return the commands whose argument is an element of FIELD's list.
todoList's toggle takes a TodoItem: each to-do row gets its button."
  (let ((items (plist-get (bindery--field-schema field) :items)))
    (and (equal (plist-get (bindery--field-schema field) :type) "array")
         (equal (plist-get items :type) "object")
         (plist-get items :typeName)
         (cl-remove-if-not
          (lambda (command)
            (let ((args (plist-get (bindery--command-schema command) :args)))
              (and (equal (plist-get args :type) "object")
                   (equal (plist-get args :typeName) (plist-get items :typeName)))))
          bindery--commands))))

(defun bindery--item-text (field item)
  "Return the line of ITEM, an element of FIELD's list, with its row buttons."
  (concat (mapconcat (lambda (command)
                       (concat (propertize (format "[%s]" (bindery--command-label command))
                                           'face 'custom-button 'mouse-face 'highlight
                                           'keymap bindery-row-button-map
                                           'bindery-row-command command
                                           'help-echo (format "RET: %s this row"
                                                              (bindery--command-label command)))
                               " "))
                     (bindery--row-commands field) "")
          (bindery--format-inline item)))

(defun bindery--field-lines (field value)
  "Return the lines showing VALUE, the read-only value of FIELD.
The daemon's text; a string's lines; a list's elements (which have no
text from the daemon) in the compact form, with their row buttons."
  (cond ((and (bindery--one-per-line-p value) (bindery--row-commands field))
         (mapcar (lambda (item) (bindery--item-text field item)) value))
        ((or (vectorp value) (stringp value)) (bindery--format-lines value))
        (t (list (bindery--field-text field)))))

(defun bindery--field-block (field value)
  "Return FIELD's VALUE as text, lines after the first under the value column."
  (mapconcat #'identity (bindery--field-lines field value)
             (concat "\n" (make-string bindery--value-column ?\s))))

(defun bindery-press-row-button (&optional pos)
  "Invoke the command of the row button at POS (point) with that row's value.
The row is sent as the form shows it: the daemon finds the model's own."
  (interactive (list (if (mouse-event-p last-input-event)
                         (posn-point (event-start last-input-event))
                       (point))))
  (let* ((pos (or pos (point)))
         (command (get-text-property pos 'bindery-row-command))
         (field (cl-find-if (lambda (f)
                              (let ((slot (bindery--field-slot f)))
                                (and slot (<= (car slot) pos) (< pos (cdr slot)))))
                            bindery--fields))
         (value (and field (gethash (bindery--field-name field) bindery--state)))
         (index (and field
                     (1- (cl-count-if (lambda (line) (<= (car line) pos))
                                      (bindery--slot-lines (bindery--field-slot field)))))))
    (if (not (and command (vectorp value) index (< index (length value))))
        (user-error "No row button here")
      (bindery--command-press command (aref value index)))))

(defun bindery--slot-lines (slot)
  "Return (START . END) of the text of each line of SLOT.
A line after the first starts after the value column's indent."
  (let ((end (marker-position (cdr slot)))
        (start (marker-position (car slot)))
        lines)
    (save-excursion
      (goto-char start)
      (while (progn (skip-chars-forward "^\n" end)
                    (push (cons start (point)) lines)
                    (< (point) end))
        (setq start (min end (+ (point) 1 bindery--value-column)))
        (goto-char start)))
    (nreverse lines)))

(defun bindery--splice-output (field old ops)
  "Redraw only the lines of the elements OPS insert in or delete from FIELD.
OLD is the list FIELD shows; its slot must show it one element a line.
Points stay where they were, with their element."
  (let ((slot (bindery--field-slot field))
        (indent (make-string bindery--value-column ?\s))
        (inhibit-read-only t))
    (when (and (bindery--one-per-line-p old)
               (equal (buffer-substring-no-properties (car slot) (cdr slot))
                      (substring-no-properties (bindery--field-block field old))))
      (catch 'cannot
        (cl-loop
         for op across ops
         for at = (plist-get op :at)
         for delete = (or (plist-get op :delete) 0)
         for texts = (mapcar (lambda (item) (car (bindery--field-lines field (vector item))))
                             (or (plist-get op :insert) []))
         do
         (let* ((lines (bindery--slot-lines slot))
                (n (length lines))
                ;; Points on a replaced element's line go to its replacement's.
                (on-deleted (bindery--points-on-lines lines at delete)))
           (when (> delete 0)
             ;; The line breaks around the deleted elements' text go too.
             (let ((beg (cond ((> at 0) (cdr (nth (1- at) lines)))
                              ((< delete n) (car (nth 0 lines)))
                              (t (throw 'cannot nil))))
                   (end (if (> at 0) (cdr (nth (+ at delete -1) lines))
                          (car (nth delete lines)))))
               (bindery--keeping-points beg end (lambda () (delete-region beg end))))
             (setq lines (bindery--slot-lines slot)))
           (when texts
             (when (cl-some (lambda (text) (string-search "\n" text)) texts)
               (throw 'cannot nil))
             (let ((pos (if (> at 0) (cdr (nth (1- at) lines)) (car (nth 0 lines)))))
               ;; After element at-1, whose end (and points there) stays;
               ;; or before element 0, which moves down with its points.
               (bindery--keeping-points
                pos pos
                (lambda ()
                  (goto-char pos)
                  (insert (mapconcat (lambda (text)
                                       (if (> at 0) (concat "\n" indent text)
                                         (concat text "\n" indent)))
                                     texts "")))
                (> at 0))
               (let ((lines (bindery--slot-lines slot)))
                 (dolist (entry on-deleted)
                   (let* ((line (nth (+ at (min (nth 1 entry) (1- (length texts)))) lines))
                          (p (min (+ (car line) (nth 2 entry)) (cdr line))))
                     (if (car entry) (set-window-point (car entry) p) (goto-char p)))))))))))))

(defun bindery--points-on-lines (lines at count)
  "Return the points on the COUNT LINES from index AT: (WINDOW LINE OFFSET) each.
WINDOW is nil for the buffer's point; LINE counts from AT; OFFSET is
from the line's start."
  (let (found)
    (dolist (entry (cons (cons nil (point))
                         (mapcar (lambda (w) (cons w (window-point w)))
                                 (delq (selected-window)
                                       (get-buffer-window-list (current-buffer) nil t)))))
      (cl-loop for i from at below (min (+ at count) (length lines))
               for line = (nth i lines)
               when (and (<= (car line) (cdr entry)) (<= (cdr entry) (cdr line)))
               do (push (list (car entry) (- i at) (- (cdr entry) (car line))) found)
               and return nil))
    found))

(defun bindery-refresh (&optional keep-typing)
  "Fetch the session's whole state again and show it, fields included.
With KEEP-TYPING, fields with text not yet sent keep it."
  (interactive)
  (if (not (bindery--live-p)) (message "%s" (bindery--dead-message))
    (let ((buffer (current-buffer))
          (child bindery--child))
      (bindery--async bindery--conn :session/state (list :session bindery--session)
                      :success (lambda (result)
                                 (bindery--in buffer
                                   (bindery--with-child child
                                     (bindery--adopt
                                      (bindery-mirror-take (bindery--mirror) bindery--session result)
                                      (not keep-typing))
                                     (bindery--render-all (not keep-typing)))))))))

;;; History: the daemon's undo

(defun bindery--history-step (method)
  "Send METHOD, `session/undo' or `session/redo', for this form.
What was typed and not sent yet goes first: it is a step of its own."
  (bindery--flush-fields)
  (if (not (bindery--live-p))
      (message "%s" (bindery--dead-message))
    (let ((buffer (current-buffer))
          id)
      (setq id (bindery--async
                bindery--conn method (list :session bindery--session)
                :success (lambda (result)
                           (bindery--in buffer
                             (bindery--history-done method id result)))
                :error (lambda (error)
                         (bindery--in buffer
                           (setq bindery--history (assq-delete-all id bindery--history))
                           (message "%s: %s" method (plist-get error :message))))))
      (when id (push (cons id nil) bindery--history)))))

(defun bindery--history-done (method id result)
  "Say so if the METHOD request ID changed nothing; RESULT is its answer."
  (let ((changed (cdr (assq id bindery--history)))
        (left (plist-get result (if (eq method :session/undo) :canUndo :canRedo))))
    (setq bindery--history (assq-delete-all id bindery--history))
    (unless (or changed (eq left t))
      (message "Nothing to %s in this form"
               (if (eq method :session/undo) "undo" "redo")))))

(defun bindery-undo ()
  "Undo the form's last step in the daemon (`session/undo').
A step is a burst of typing in one field (writes less than 0.5 s
apart) or an undoable command; the form shows the values it took
back.  The form's buffer keeps no undo list of its own: this is
its undo, on every key bound to `undo' (\\<bindery-form-mode-map>\\[bindery-undo] and others)."
  (interactive)
  (bindery--history-step :session/undo))

(defun bindery-redo ()
  "Redo the step the last `bindery-undo' took back (`session/redo').
On every key bound to `undo-redo' (\\<bindery-form-mode-map>\\[bindery-redo] and others)."
  (interactive)
  (bindery--history-step :session/redo))

(defun bindery--form-stop (reason)
  "Stop this form's timers and commands: its session ended, for REASON."
  (setq bindery--dead reason)
  (mapc #'bindery--field-cancel bindery--fields)
  (bindery--commands-stop))

(defun bindery--form-died (reason &optional next)
  "Show that the daemon behind this form ended, for REASON.
NEXT says what the person can do (by default, open a new form)."
  (bindery--form-stop reason)
  (bindery--slot-set bindery--status
                     (format "%s: this form is no longer live.\n%s\n"
                             reason (or next "M-x bindery-open starts a new daemon."))
                     'bindery-error)
  (rename-buffer (replace-regexp-in-string "\\*?\\'" " (dead)\\&" (buffer-name))
                 t))

(defun bindery--field-start (field)
  "Return the marker where FIELD's value starts (its widget's or slot's), or nil."
  (let ((widget (bindery--field-widget field)))
    (if widget (widget-get widget :from) (car (bindery--field-slot field)))))

(defun bindery--field-at-point ()
  "Return the name of the field or output whose line point is on, or nil."
  (let ((line (line-number-at-pos)))
    (cl-loop for field in bindery--fields
             for start = (bindery--field-start field)
             when (and start (= (line-number-at-pos (marker-position start)) line))
             return (bindery--field-name field))))

(defun bindery--goto-field (name column)
  "Move to COLUMN of the line of the field NAME, if the form has it."
  (let ((field (cl-find name bindery--fields :key #'bindery--field-name :test #'equal)))
    (when field
      (goto-char (marker-position (bindery--field-start field)))
      (move-to-column column))))

(defun bindery--keeping-field-at-point (build)
  "Call BUILD, which builds the form again; point stays in its field.
On the same field's line and column, in every window showing the form."
  (let ((at (bindery--field-at-point))
        (column (current-column))
        (windows (get-buffer-window-list (current-buffer) nil t)))
    (funcall build)
    (when at (bindery--goto-field at column))
    (dolist (window windows) (set-window-point window (point)))))

(defun bindery--form-killed ()
  "Close the session of the form being killed."
  (mapc #'bindery--field-cancel bindery--fields)
  (when (and bindery--conn (not bindery--dead) (jsonrpc-running-p bindery--conn))
    (when bindery--children
      (maphash (lambda (id _child) (bindery--unregister bindery--conn id)) bindery--children))
    (bindery--unregister bindery--conn bindery--session)
    (ignore-errors
      (bindery--async bindery--conn :session/close
                      (list :session bindery--session)))))

(defun bindery-set-field (name text)
  "Set the state member NAME to what TEXT reads as, as `setField' would.
The daemon reads TEXT; its refusal (a read-only output, text it cannot
read) shows next to the member."
  (interactive
   (let ((name (completing-read "Set member: "
                                (mapcar #'bindery--field-name bindery--fields)
                                nil t)))
     (list name (read-string (format "%s: " name)
                             (bindery--member-text name (gethash name bindery--state)
                                                   bindery--display)))))
  (let ((field (cl-find name bindery--fields :key #'bindery--field-name
                        :test #'equal)))
    (unless field (user-error "No field %S in this form" name))
    (if (not (bindery--live-p)) (message "%s" (bindery--dead-message))
      (bindery--field-send field (list :text text)))))

(provide 'bindery-form)
;;; bindery-form.el ends here
