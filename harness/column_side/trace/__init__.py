"""What a column process tells about itself: the lines it ran (``lines``, for the glue coverage), the facts of its
trace (``facts``) and where each mechanism lives in the framework's source (``mechanisms``)."""
