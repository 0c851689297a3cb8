;;; bindery-reattach.el --- Forms whose shared daemon died, reattached  -*- lexical-binding: t -*-

;; This file is part of the Bindery Emacs package; see bindery.el.

;;; Commentary:

;; When the shared daemon behind `binderyd --remote' dies, the
;; connection reaches it again with backoff (`bindery--reconnect'; the
;; forwarder starts a daemon when none answers).  A form opened with a
;; key waits for that, saying so, then opens its key again on the new
;; connection: the daemon kept the keyed session's values on disk, so
;; the reopen is `restored', and the same buffer goes on with the new
;; session.  A form without a key says its session is closed: it ended
;; with the daemon.

;;; Code:

(require 'cl-lib)
(require 'bindery-daemon)
(require 'bindery-mirror)
(require 'bindery-value)
(require 'bindery-form)

(declare-function bindery--open-session "bindery" (conn type key args interactive))

(defun bindery--form-lost (reason)
  "The shared daemon behind this form died, for REASON: wait for it, or close."
  (if (not bindery--key)
      (bindery--form-died
       reason "Its session had no key: it ended with the daemon, and is closed (M-x bindery-open opens a new one).")
    (bindery--form-stop reason)
    (bindery--slot-set bindery--status (format "%s\nReconnecting…\n" reason) 'bindery-error)
    (let ((buffer (current-buffer)))
      (setq bindery--waiter
            (lambda (event data)
              (bindery--in buffer
                (pcase event
                  ('waiting
                   (bindery--slot-set bindery--status
                                      (format "%s\nReconnecting in %s s…\n" reason data)
                                      'bindery-error))
                  ('reconnected (bindery--reattach data reason))
                  ('stopped
                   (setq bindery--waiter nil)
                   (bindery--form-died reason data))))))
      (bindery--await-reconnection bindery--waiter)
      (add-hook 'kill-buffer-hook #'bindery--reattach-forget nil t))))

(defun bindery--reattach-forget ()
  "This form no longer waits for its daemon (it is being killed)."
  (setq bindery--waiters (delq bindery--waiter bindery--waiters)))

(defun bindery--reattach (conn reason)
  "Open this form's key again on CONN and go on with that session.
REASON is how the daemon before it ended."
  (setq bindery--waiter nil)
  (condition-case err
      (let* ((type bindery--type)
             (key bindery--key)
             (schema (bindery--schema conn type))
             (opened (bindery--open-session conn type key nil nil)))
        (bindery--keeping-field-at-point
         (lambda () (bindery--form-show conn schema opened key)))
        (bindery--slot-set
         bindery--status
         (format "Reconnected: key %S opened again, %s.\n(%s)\n" key
                 (cond ((eq (plist-get opened :restored) t) "its values restored")
                       ;; Another client reopened the key first: this form joined it, kept values and all.
                       ((eq (plist-get opened :reopened) t) "joining the session another client reopened")
                       (t "with new values (the daemon had not kept this session's)"))
                 reason)
         'shadow)
        (message "bindery: reconnected; %s reopened" (buffer-name)))
    (error (bindery--form-died
            reason (format "Reconnected, but its key could not be opened again: %s"
                           (error-message-string err))))))

(provide 'bindery-reattach)
;;; bindery-reattach.el ends here
