"""debates/debate"""
