"""agents/models"""
