"""debates/scoring"""
