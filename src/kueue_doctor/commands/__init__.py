"""The sub-commands of ``kueue-doctor``; ``cli`` registers each module's ``command``."""
