;;; five_faces_emacs.el --- the Emacs face of test_five_faces.py  -*- lexical-binding: t; -*-

;; Run by `emacs -Q --batch' after bindery.el: opens the keyed form through
;; `binderyd --remote auto' and appends to $FIVE_OUT, one JSON object a line,
;; every text its buffer shows ({"text": ...}).  It reads the daemon until the
;; file $FIVE_STOP exists, then exits as a person's Emacs would (a SIGTERM'd
;; batch Emacs takes 2 s to say goodbye: its shutdown request is not answered).

;;; Code:

(require 'bindery)

(setq bindery-command (list (getenv "BINDERYD") "--remote" "auto")
      bindery-arguments nil)

(let ((out (getenv "FIVE_OUT"))
      (last nil)
      (form nil))
  (cl-flet ((say (key text)
              (let ((coding-system-for-write 'utf-8-unix))
                (write-region (concat (json-serialize (list (cons key text))) "\n")
                              nil out t 'silent))))
    (condition-case err
        (setq form (bindery-open (getenv "FIVE_TYPE") (getenv "FIVE_KEY")))
      (error (say 'message (format "bindery-open failed: %S" err))))
    ;; Every distinct text: after each change (a status line may come and go
    ;; between two looks), and between reads of the daemon.
    (let ((look (lambda (&rest _)
                  (when (buffer-live-p form)
                    (let ((text (with-current-buffer form
                                  (buffer-substring-no-properties (point-min) (point-max)))))
                      (unless (equal text last)
                        (setq last text)
                        (say 'text text)))))))
      (when form
        (with-current-buffer form
          (add-hook 'after-change-functions (lambda (&rest _) (run-at-time 0 nil look)) nil t)))
      (while (not (file-exists-p (getenv "FIVE_STOP")))
        (funcall look)
        (accept-process-output nil 0.05))
      (kill-emacs 0))))

;;; five_faces_emacs.el ends here
