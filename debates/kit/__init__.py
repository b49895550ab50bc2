"""What methods share: K independent samples of a judge (``samples``), combining scores and verdicts (``combine``:
mean, majority, the two orders), asking an answer without a score or verdict again (``reask``), re-reading
pairwise records (``reread``), transcripts (``transcript``), a method's prompt files
(``prompt_files``)."""
