;;; bindery-command.el --- The buttons of a Bindery form  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; One push-button per command of the view model, with its state next
;; to it ("running…", "(disabled)") and its result or error on the line
;; under it.  Commands are invoked asynchronously, so Emacs never waits
;; for one, and cancelled with `$/cancelRequest'.

;;; Code:

(require 'cl-lib)
(require 'wid-edit)
(require 'jsonrpc)
(require 'bindery-settings)
(require 'bindery-daemon)
(require 'bindery-value)
(require 'bindery-form)

(defface bindery-result '((t :inherit success))
  "Face of a command's result, under its button."
  :group 'bindery)

(defface bindery-running '((t :inherit warning))
  "Face of the \"running…\" note next to a command that runs."
  :group 'bindery)

(defface bindery-disabled '((t :inherit shadow))
  "Face of a button whose command is disabled."
  :group 'bindery)

(cl-defstruct (bindery--command (:constructor bindery--command-create)
                                (:copier nil))
  "One command of a form, with the ids of its invocations still running."
  name label schema button status result ids)

(defun bindery--commands-from (schemas)
  "A command per schema of SCHEMAS, with no button yet."
  (mapcar (lambda (s)
            (bindery--command-create :name (plist-get s :name)
                                     :label (plist-get s :label)
                                     :schema s))
          schemas))

(defun bindery--commands-insert (schemas)
  "Insert a button per command of SCHEMAS; return the slots to finalize."
  (setq bindery--commands (bindery--commands-from schemas))
  (cl-loop for command in bindery--commands
           do (bindery--insert-command command)
           collect (bindery--command-status command)
           collect (bindery--command-result command)))

(defun bindery--commands-update (&optional names)
  "Show the state of the commands NAMES (all when nil) next to their buttons."
  (dolist (command bindery--commands)
    (when (or (null names) (member (bindery--command-name command) names))
      (bindery--command-render command))))

(defun bindery--commands-stop ()
  "Forget the invocations in flight: the daemon is gone."
  (dolist (command bindery--commands)
    (setf (bindery--command-ids command) nil)
    (bindery--command-render command)))

(defun bindery--row-buttons-insert (schemas)
  "Insert a button per command of SCHEMAS on a child row's line.
Return the slots to finalize.  A row's results show as messages."
  (setq bindery--commands (bindery--commands-from schemas))
  (cl-loop for command in bindery--commands
           collect (prog1 (bindery--insert-button command)
                     (insert " "))))

(defun bindery--insert-button (command)
  "Insert COMMAND's button and the slot of its status; return that slot."
  (let ((button (widget-create 'push-button
                               :notify #'bindery--command-notify
                               :bindery-command command
                               :bindery-child bindery--child
                               (bindery--command-label command))))
    (when bindery--child (push button (bindery--child-widgets bindery--child)))
    (widget-put button :bindery-face
                (overlay-get (widget-get button :button-overlay) 'face))
    (setf (bindery--command-button command) button
          (bindery--command-status command) (bindery--slot-create))))

(defun bindery--insert-command (command)
  "Insert COMMAND's button, its status and the line for its result."
  (insert bindery--indent)
  (bindery--insert-button command)
  (insert "\n")
  (setf (bindery--command-result command) (bindery--slot-create)))

(defun bindery--command-enabled-p (command)
  "Non-nil unless the state says COMMAND is disabled."
  (not (eq (gethash (concat (bindery--command-name command) ".enabled")
                    bindery--state t)
           :json-false)))

(defun bindery--command-running-p (command)
  "Non-nil while COMMAND runs: its state says so, or an invoke is pending."
  (or (bindery--command-ids command)
      (eq (gethash (concat (bindery--command-name command) ".running")
                   bindery--state)
          t)))

(defun bindery--command-render (command)
  "Show whether COMMAND is running or disabled, next to its button."
  (let ((enabled (and (not bindery--dead) (bindery--command-enabled-p command)))
        (button (bindery--command-button command)))
    (overlay-put (widget-get button :button-overlay) 'face
                 (if enabled (widget-get button :bindery-face) 'bindery-disabled))
    (bindery--slot-set (bindery--command-status command)
                       (cond (bindery--dead "")
                             ((bindery--command-running-p command)
                              (propertize " running…" 'face 'bindery-running))
                             ((not enabled)
                              (propertize " (disabled)" 'face 'bindery-disabled))
                             (t "")))))

(defun bindery--command-notify (widget &rest _)
  "Invoke the command of the button WIDGET."
  (bindery--with-child (widget-get widget :bindery-child)
    (bindery--command-press (widget-get widget :bindery-command))))

(defun bindery--command-show (command text face)
  "Show TEXT in FACE on the line under COMMAND's button (nil clears it)."
  (when (bindery--command-result command) ; a row's buttons have none
    (bindery--slot-set (bindery--command-result command)
                       (if text (concat bindery--indent "    " text "\n") "")
                       face)))

(defun bindery--command-press (command &optional args)
  "Invoke COMMAND with ARGS, after sending what was typed; do not wait for it.
A command that takes arguments asks for them when ARGS is nil: what
the person types goes as `text', for the daemon to read."
  (bindery--flush-fields)
  (cond
   ((not (bindery--live-p)) (message "%s" (bindery--dead-message)))
   ((not (bindery--command-enabled-p command))
    (message "%s is disabled" (bindery--command-label command)))
   (t
    (let* ((buffer (current-buffer))
           (child bindery--child)
           (timeout (bindery--command-timeout-setting))
           (schema (bindery--command-schema command))
           (type (plist-get schema :args))
           (text (and (not args) type
                      (read-string
                       (format "%s (%s%s): " (bindery--command-label command)
                               (or (plist-get type :typeName) (plist-get type :type))
                               (if (equal (plist-get type :type) "object") "; or RET on a row" "")))))
           (params (append (list :session bindery--session
                                 :command (bindery--command-name command))
                           (and args (list :args args))
                           (and text (list :text text))))
           id)
      (setq id (bindery--async
                bindery--conn :invoke params
                :timeout timeout
                :success (lambda (result)
                           (bindery--in buffer
                             (bindery--with-child child
                               (bindery--command-done command id result nil))))
                :error (lambda (error)
                         (bindery--in buffer
                           (bindery--with-child child
                             (bindery--command-done command id nil error))))))
      (push id (bindery--command-ids command))
      (bindery--command-show command nil nil)
      (bindery--command-render command)))))

(defun bindery--command-done (command id result error)
  "Show how the invoke ID of COMMAND ended: RESULT, or ERROR (a plist)."
  (setf (bindery--command-ids command) (delete id (bindery--command-ids command)))
  ;; Given up on (`bindery-command-timeout'): the daemon need not finish it.
  (when (plist-get error :timeout)
    (when (bindery--live-p)
      (jsonrpc-notify bindery--conn '$/cancelRequest (list :id id)))
    (setq error (list :message (concat (plist-get error :message)
                                       " (bindery-command-timeout); cancelled"))))
  (if error
      (let ((message (bindery--refusal error)))
        (bindery--command-show command (concat "! " message) 'bindery-error)
        (message "%s: %s" (bindery--command-label command) message))
    (let ((value (plist-get result :result)))
      (bindery--command-show command
                             (concat "=> " (if value (bindery--format-inline value)
                                             "done"))
                             'bindery-result)))
  (bindery--command-render command))

(defun bindery--command-at-point ()
  "Return the command whose button is at point, or nil."
  (let ((widget (widget-at (point))))
    (and widget (widget-get widget :bindery-command))))

(defun bindery-invoke (&optional command)
  "Invoke COMMAND: the one at point, the form's only one, or one asked for."
  (interactive)
  (let ((command
         (or command (bindery--command-at-point)
             (pcase bindery--commands
               ('() (user-error "This form has no commands"))
               (`(,only) only)
               (all (let ((label (completing-read
                                  "Invoke: " (mapcar #'bindery--command-label all)
                                  nil t)))
                      (cl-find label all :key #'bindery--command-label
                               :test #'equal)))))))
    (let ((widget (widget-at (point))))
      (bindery--with-child (and widget (eq (widget-get widget :bindery-command) command)
                                (widget-get widget :bindery-child))
        (bindery--command-press command)))))

(defun bindery-cancel ()
  "Cancel the running command at point, or every command of the form running."
  (interactive)
  (let* ((at (bindery--command-at-point))
         (commands (if (and at (bindery--command-ids at)) (list at)
                     (cl-remove-if-not #'bindery--command-ids bindery--commands))))
    (cond ((not (bindery--live-p)) (message "%s" (bindery--dead-message)))
          ((null commands) (message "No command of this form is running"))
          (t (dolist (command commands)
               (dolist (id (bindery--command-ids command))
                 (jsonrpc-notify bindery--conn '$/cancelRequest (list :id id))))
             (message "Cancelling %s…"
                      (mapconcat #'bindery--command-label commands ", "))))))

(provide 'bindery-command)
;;; bindery-command.el ends here
