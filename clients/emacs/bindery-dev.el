;;; bindery-dev.el --- bindery-dev's notifications in Bindery forms  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; With `bindery-command' set to bindery-dev (the developer loop; see
;; protocol.md, "The developer loop"), the daemon is rebuilt each time a
;; view model's source is saved.  When the new one has taken over
;; (`daemon/reloaded'), the forms of the types whose schema changed are
;; built again from the new schema -- new fields appear, removed ones
;; go -- keeping what was typed and the field at point.  A failed build
;; (`daemon/buildFailed') fills the `compilation-mode' buffer
;; "*bindery-dev build*" (so `next-error' jumps into the Swift source)
;; and puts a line in every form; the next success clears both.  A
;; session the reload closed (`session/closed') shows as dead.  A plain
;; binderyd sends none of these.

;;; Code:

(require 'cl-lib)
(require 'compile)
(require 'wid-edit)
(require 'bindery-daemon)
(require 'bindery-value)
(require 'bindery-form)

(defconst bindery-dev-build-buffer "*bindery-dev build*"
  "Name of the `compilation-mode' buffer showing a failed build.")

(defvar-local bindery-dev--build-error nil
  "The first error of the failed build this form shows, or nil.")

(defun bindery-dev--notification (conn method params)
  "Handle bindery-dev's notification METHOD with PARAMS from CONN."
  (condition-case-unless-debug err
      (pcase method
        ('daemon/reloaded (bindery-dev--reloaded conn params))
        ('daemon/buildFailed (bindery-dev--build-failed conn params))
        ;; The daemon died while serving (a crash in a view model): a save restarts it.
        ('daemon/exited
         (bindery-dev--build-failed
          conn (list :diagnostics (vector (list :severity "error" :message (plist-get params :message))))
          "The daemon exited; save a source to restart it"))
        ('session/closed (bindery-dev--closed conn params))
        ('daemon/reloading (bindery--log "--- bindery-dev: building")))
    (error (message "bindery: %s failed: %s" method (error-message-string err)))))

;;; A new daemon took over

(defun bindery-dev--reloaded (conn params)
  "Clear the failure CONN showed; redraw the forms of PARAMS' changed types."
  (bindery-dev--clear conn)
  (bindery--log "--- bindery-dev: reloaded (build %s ms, restart %s ms, migrate %s ms)"
                (plist-get params :buildMs) (plist-get params :restartMs)
                (plist-get params :migrateMs))
  (dolist (type (append (plist-get params :types) nil))
    (bindery--async
     conn :viewModels/describe (list :type type)
     :success (lambda (result)
                (let ((schema (elt (plist-get result :viewModels) 0)))
                  (bindery-dev--take-schema conn type schema)))
     ;; A type that is gone: its sessions were closed (`session/closed').
     :error (lambda (_error) (bindery-dev--take-schema conn type nil)))))

(defun bindery-dev--take-schema (conn type schema)
  "Make SCHEMA (nil: none) CONN's schema of TYPE, and rebuild its forms."
  (setf (bindery--conn-schemas conn)
        (append (cl-remove type (bindery--conn-schemas conn)
                           :key (lambda (s) (plist-get s :type)) :test #'equal)
                (and schema (list schema))))
  (when schema
    (dolist (buffer (bindery--forms conn))
      (with-current-buffer buffer
        (when (equal bindery--type type)
          (bindery-dev--rebuild schema))))))

(defun bindery-dev--rebuild (schema)
  "Build the current form again from SCHEMA, keeping values and the field at point.
What was typed and not sent yet is sent first, and shown again."
  (bindery--flush-typed)
  (let ((failure bindery-dev--build-error))
    ;; The widgets hold what the person typed (the daemon does not echo it):
    ;; a control's value, or text shown again as it was typed.
    (dolist (field bindery--fields)
      (when (bindery--field-widget field)
        (let ((input (bindery--field-input field))
              (name (bindery--field-name field)))
          (if (plist-member input :text)
              (puthash name (plist-get input :text) bindery--display)
            (puthash name (plist-get input :value) bindery--state)))))
    (bindery--keeping-field-at-point
     (lambda ()
       (bindery--form-build bindery--conn schema bindery--session bindery--key
                            (hash-table-keys bindery--children))
       (when failure (bindery-dev--show-failure failure))))))

;;; A build failed

(defun bindery-dev--build-failed (conn params &optional headline)
  "Show the diagnostics of PARAMS in the compilation buffer and CONN's forms.
HEADLINE says what failed (default: the build, or the new daemon)."
  (let* ((buffer (get-buffer-create bindery-dev-build-buffer))
         (rolled-back (eq (plist-get params :rolledBack) t))
         (serving (not headline))
         (headline (or headline (if rolled-back "The new daemon failed" "Build failed")))
         first)
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "bindery-dev: %s%s.\n\n" (downcase headline)
                        (if serving "; the previous build goes on serving" "")))
        (dolist (diagnostic (append (plist-get params :diagnostics) nil))
          (let ((file (plist-get diagnostic :file))
                (severity (or (plist-get diagnostic :severity) "error"))
                (text (or (plist-get diagnostic :message) "")))
            (insert (if (stringp file)
                        (format "%s:%s:%s: %s: %s\n" file (plist-get diagnostic :line)
                                (plist-get diagnostic :column) severity text)
                      (format "%s: %s\n" severity text)))
            (when (and (not first) (equal severity "error"))
              (setq first (concat (if (stringp file)
                                      (format "%s:%s: " (file-name-nondirectory file)
                                              (plist-get diagnostic :line))
                                    "")
                                  (car (split-string text "\n")))))))
        (goto-char (point-min)))
      (compilation-mode)
      (setq-local compilation-error-regexp-alist '(gnu)))
    (setq next-error-last-buffer buffer)
    (unless noninteractive (display-buffer buffer '(nil (inhibit-same-window . t))))
    (dolist (form (bindery--forms conn))
      (with-current-buffer form
        (bindery-dev--show-failure (concat headline ": " (or first "see the build buffer")))))
    (message "bindery-dev: %s (see %s)" (downcase headline) bindery-dev-build-buffer)))

(defun bindery-dev--show-failure (text)
  "Show TEXT, about a failed build, on the form's status line."
  (setq bindery-dev--build-error text)
  (bindery--slot-set bindery--status
                     (format "%s (%s)\n" text bindery-dev-build-buffer)
                     'bindery-error))

(defun bindery-dev--clear (conn)
  "Take the failure off CONN's forms and the compilation buffer."
  (let ((buffer (get-buffer bindery-dev-build-buffer)))
    (when buffer
      (with-current-buffer buffer
        (let ((inhibit-read-only t))
          (erase-buffer)
          (insert "bindery-dev: the last build succeeded.\n")))))
  (dolist (form (bindery--forms conn))
    (with-current-buffer form
      (when bindery-dev--build-error
        (setq bindery-dev--build-error nil)
        (bindery--slot-set bindery--status "")))))

;;; A session closed by a reload

(defun bindery-dev--closed (conn params)
  "Show the form of the session PARAMS names on CONN as closed."
  (let* ((session (plist-get params :session))
         (handler (gethash session (bindery--conn-sessions conn))))
    (bindery--unregister conn session)
    (when handler
      (funcall handler 'died (format "closed by bindery-dev: %s" (plist-get params :reason))))))

(provide 'bindery-dev)
;;; bindery-dev.el ends here
