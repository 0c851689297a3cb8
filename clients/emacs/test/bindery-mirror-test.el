;;; bindery-mirror-test.el --- The client mirror corpus, through bindery-mirror.el  -*- lexical-binding: t -*-

;;; Commentary:

;; Every case of Tests/ClientMirror/cases/*.json run through the
;; package's own mirror (bindery-mirror.el) and compared as
;; Tests/ClientMirror/reference_mirror.py's `run' does.  Messages are
;; read as `jsonrpc.el' reads them (null nil, false `:json-false',
;; objects plists), so the mirror sees what the real connection gives
;; it.  With BINDERY_MIRROR_RECEIPTS naming a directory, a run of every
;; case without a failure writes emacs.json there.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'bindery-mirror)

(defun bindery-test-mirror--cases-directory ()
  "Tests/ClientMirror/cases: BINDERY_MIRROR_CASES (test/run sets it), else found."
  (or (getenv "BINDERY_MIRROR_CASES")
      (let ((repo (locate-dominating-file default-directory "Tests/ClientMirror")))
        (and repo (expand-file-name "Tests/ClientMirror/cases" repo)))
      (error "No corpus: set BINDERY_MIRROR_CASES to Tests/ClientMirror/cases")))

(defun bindery-test-mirror--read (file)
  "FILE's JSON as `jsonrpc.el' reads a message."
  (with-temp-buffer
    (insert-file-contents file)
    (json-parse-buffer :object-type 'plist :null-object nil :false-object :json-false)))

(defun bindery-test-mirror--expand (value)
  "VALUE with each {\"$range\": N} the vector [0 .. N-1] (the corpus's shorthand)."
  (cond ((and (consp value) (eq (car value) :$range) (= (length value) 2))
         (vconcat (number-sequence 0 (1- (cadr value)))))
        ((consp value) (cl-loop for (k v) on value by #'cddr
                                append (list k (bindery-test-mirror--expand v))))
        ((vectorp value) (vconcat (mapcar #'bindery-test-mirror--expand value)))
        (t value)))

(defun bindery-test-mirror--normal (value)
  "VALUE comparable with `equal' as Python compares: objects by keys, in any order."
  (cond ((hash-table-p value)
         (let (pairs)
           (maphash (lambda (k v) (push (cons k (bindery-test-mirror--normal v)) pairs)) value)
           (sort pairs (lambda (a b) (string< (car a) (car b))))))
        ((consp value)
         (sort (cl-loop for (k v) on value by #'cddr
                        collect (cons (substring (symbol-name k) 1)
                                      (bindery-test-mirror--normal v)))
               (lambda (a b) (string< (car a) (car b)))))
        ((vectorp value) (vconcat (mapcar #'bindery-test-mirror--normal value)))
        (t value)))

(defun bindery-test-mirror--id (key)
  "The session id of the plist KEY `:4'."
  (string-to-number (substring (symbol-name key) 1)))

(defun bindery-test-mirror--run (case)
  "Fold CASE's messages into the mirror its `given' builds; return what differs."
  (let* ((mirror (bindery-mirror-create))
         (given (plist-get case :given))
         (expect (plist-get case :expect))
         problems)
    (cl-loop for (key entry) on (plist-get given :sessions) by #'cddr
             do (bindery-mirror-take mirror (bindery-test-mirror--id key) entry))
    (seq-doseq (write (plist-get given :pending))
      (bindery-mirror-write mirror (plist-get write :id) (plist-get write :session)
                            (plist-get write :field) (list :value (plist-get write :value))))
    (seq-doseq (message (plist-get case :receive))
      (cond ((equal (plist-get message :method) "didChange")
             (bindery-mirror-fold mirror (plist-get message :params)))
            ((plist-member message :id)
             (bindery-mirror-answer mirror (plist-get message :id)
                                    (plist-get message :result) (plist-get message :error)))))
    (cl-flet ((differs (what actual expected)
                (unless (equal (bindery-test-mirror--normal actual)
                               (bindery-test-mirror--normal expected))
                  (push (format "%s: %S, expected %S" what (bindery-test-mirror--normal actual)
                              (bindery-test-mirror--normal expected))
                      problems))))
      (differs "resync" (vconcat (sort (copy-sequence (bindery-mirror-resync mirror)) #'<))
               (vconcat (sort (append (plist-get expect :resync) nil) #'<)))
      (when (plist-member expect :sessions)
        (let (held)
          (maphash (lambda (id _) (unless (bindery-mirror-out-of-step-p mirror id) (push id held)))
                   (bindery-mirror-sessions mirror))
          (differs "sessions" (vconcat (sort (copy-sequence held) #'<))
                   (vconcat (sort (cl-loop for (key _) on (plist-get expect :sessions) by #'cddr
                                  collect (bindery-test-mirror--id key))
                                  #'<)))
          (cl-loop
           for (key expected) on (plist-get expect :sessions) by #'cddr
           for id = (bindery-test-mirror--id key)
           for session = (and (memq id held) (bindery-mirror-get mirror id))
           do (cl-loop for (field value) on expected by #'cddr
                       do (differs (format "session %d %s" id field)
                                   (and session
                                        (pcase field
                                          (:type (bindery-mirror-session-type session))
                                          (:revision (bindery-mirror-session-revision session))
                                          (:state (bindery-mirror-session-state session))
                                          (:display (bindery-mirror-session-display session))))
                                   value)))))
      (cl-loop for (key expected) on (plist-get expect :shown) by #'cddr
               for id = (bindery-test-mirror--id key)
               for shown = (bindery-mirror-shown mirror id)
               do (cl-loop for (field value) on expected by #'cddr
                           for name = (substring (symbol-name field) 1)
                           do (differs (format "session %d shows %s" id name)
                                       (gethash name shown) value)))
      (when (plist-member expect :pending)
        (differs "pending" (vconcat (mapcar (lambda (w) (plist-get w :id)) (bindery-mirror-pending mirror)))
                 (vconcat (plist-get expect :pending)))))
    (nreverse problems)))

(ert-deftest bindery-test-mirror-corpus ()
  "Every case of the client mirror corpus, folded by bindery-mirror.el."
  (let ((files (directory-files (bindery-test-mirror--cases-directory) t "\\.json\\'"))
        (ran 0)
        failures)
    (should files)
    (dolist (file files)
      (seq-doseq (case (plist-get (bindery-test-mirror--expand (bindery-test-mirror--read file))
                                  :cases))
        (cl-incf ran)
        (let ((problems (bindery-test-mirror--run case)))
          (when problems
            (push (format "%s: %s:\n  %s" (file-name-nondirectory file) (plist-get case :name)
                          (mapconcat #'identity problems "\n  "))
                  failures)))))
    (should (equal (reverse failures) nil))
    (let ((receipts (getenv "BINDERY_MIRROR_RECEIPTS")))
      (when (and receipts (not (equal receipts "")))
        (make-directory receipts t)
        (with-temp-file (expand-file-name "emacs.json" receipts)
          (insert (json-serialize (list :face "emacs" :cases ran)) "\n"))))))

(provide 'bindery-mirror-test)
;;; bindery-mirror-test.el ends here
